/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_UMEM_H
#define AF_XDP_UMEM_H

#include "af_xdp.h"
#include "af_xdp_uapi.h"

/*
 * Where the UMEM lies in mempool mp and how chunk addresses map to mbufs.
 * Returns 0, or -EINVAL with the reason the pool cannot be a UMEM in err.
 */
int af_xdp_umem_layout(struct rte_mempool *mp, struct af_xdp_umem_layout *layout,
		       char *err, size_t err_len);

/*
 * Whether Rx mempool mp can be a UMEM itself (*why NONE) or needs the
 * driver's (*why says why, err says it in words); -EINVAL (err says why)
 * when no UMEM can serve it (not a packet pool, a data room too small for
 * a chunk, not populated).
 */
int af_xdp_umem_owner_of(struct rte_mempool *mp, enum af_xdp_umem_why *why, char *err,
			 size_t err_len);
/* The state block's word for why: none, pinned-external-buffers, discontiguous. */
const char *af_xdp_umem_why_name(enum af_xdp_umem_why why);
/*
 * The longest frame one chunk of a UMEM serving mp holds, whoever owns it
 * (the driver's has mp's chunks); 0 when none can serve it.
 */
uint32_t af_xdp_umem_chunk_frame(struct rte_mempool *mp);

/*
 * The mempool cache of the driver's UMEM pools, counted in their size for
 * at most AF_XDP_OWN_POOL_LCORES lcores.
 */
#define AF_XDP_OWN_POOL_CACHE	256
#define AF_XDP_OWN_POOL_LCORES	8

/*
 * The UMEM the socket fd is to use for mp: with shared_umem, one already
 * registered for mp by a bound socket (*shared is then true: bind with
 * XDP_SHARED_UMEM on af_xdp_umem_fd()); otherwise mp registered on fd.
 * With own_chunks, a UMEM the driver owns instead, of that many chunks
 * of mp's size (af_xdp_umem_own_pool()), registered on fd and never
 * shared.  NULL after logging why.
 */
struct af_xdp_umem *af_xdp_umem_join(const struct af_xdp_port *port, struct rte_mempool *mp,
				     int fd, uint32_t own_chunks, bool *shared);
/*
 * fd, which registered umem, is bound (multi_buffer: with XDP_USE_SG, which
 * the kernel records in the UMEM for every socket sharing it): other
 * sockets may share it now.
 */
void af_xdp_umem_bound(struct af_xdp_umem *umem, int fd, bool multi_buffer);
/* Whether the sockets of umem take frames of several descriptors. */
bool af_xdp_umem_multi_buffer(const struct af_xdp_umem *umem);
/*
 * The socket fd, about to be closed, leaves umem (freed with its last
 * socket; the driver's pool is not: af_xdp_umem_own_pool()).
 */
void af_xdp_umem_leave(struct af_xdp_umem *umem, int fd);

const struct af_xdp_umem_layout *af_xdp_umem_layout_of(const struct af_xdp_umem *umem);
struct rte_mempool *af_xdp_umem_pool(const struct af_xdp_umem *umem);
/*
 * The driver's pool that is the UMEM, NULL when the application's is.  It
 * outlives the UMEM: its owner frees it (rte_mempool_free(), which frees
 * its memzone) once the kernel is done with the socket's chunks.
 */
struct rte_mempool *af_xdp_umem_own_pool(const struct af_xdp_umem *umem);
/*
 * The Tx metadata the UMEM was registered with, in front of every frame
 * sent: 0 (none: tx_csum=sw, or a kernel without it) or AF_XDP_TX_META_LEN.
 */
uint32_t af_xdp_umem_tx_meta_len(const struct af_xdp_umem *umem);
/* The bound socket that registered it: what XDP_SHARED_UMEM names. */
int af_xdp_umem_fd(const struct af_xdp_umem *umem);

#endif /* AF_XDP_UMEM_H */
