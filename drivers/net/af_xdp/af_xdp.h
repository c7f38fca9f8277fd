/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_H
#define AF_XDP_H

/*
 * Private types of the extended AF_XDP PMD, shared by its files:
 *
 *   af_xdp_ethdev.c   probe/remove and the ethdev ops
 *   af_xdp_devargs.c  devargs parsing and validation
 *   af_xdp_iface.c    the kernel interface: index, MAC, flags, MTU, channels
 *   af_xdp_umem.c     mempool-backed UMEM and the AF_XDP sockets
 *   af_xdp_rx.c       the 64-descriptor batched receive
 *   af_xdp_tx.c       transmit and completion
 *   af_xdp_prog.c     the XDP program: load, attach, detach, XSKMAP
 *   af_xdp_mp.c       secondary processes: socket fds for statistics
 *
 * Words used with one meaning each: a *queue* is an ethdev Rx or Tx queue;
 * a *socket* is the AF_XDP socket serving the queue pair of one index; a
 * *ring* is one of the socket's four rings; the *UMEM* is the packet memory
 * registered with the kernel, which is the mbuf mempool itself.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <linux/if_xdp.h>
#include <net/if.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_spinlock.h>

#include "af_xdp_devargs.h"
#include "af_xdp_ring.h"

#define AF_XDP_DRIVER_NAME	net_af_xdp
#define AF_XDP_PROJECT		"af_xdp_direct"

extern int af_xdp_logtype;
#define AF_XDP_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, af_xdp_logtype, "%s(): " fmt "\n", __func__, ##__VA_ARGS__)
#define AF_XDP_PORT_LOG_AT(level, port, fmt, ...) \
	rte_log(level, af_xdp_logtype, "%s: " fmt "\n", (port)->name, ##__VA_ARGS__)
#define AF_XDP_PORT_LOG(level, port, ...) AF_XDP_PORT_LOG_AT(RTE_LOG_ ## level, port, __VA_ARGS__)

/*
 * Descriptors per Rx batch.  64 is what a NAPI poll hands over at once and
 * what fits in L1 alongside the mbuf headers it touches; each batch costs one
 * consumer update, and each refill of 64 one bulk mempool get and one
 * producer update.
 */
#define AF_XDP_RX_BATCH		64
/* Most completions drained, and descriptors reserved, per Tx round. */
#define AF_XDP_TX_BATCH		64
/* Empty polls between two looks at the fill ring when nothing is received. */
#define AF_XDP_IDLE_FILL_CHECK	256

/*
 * Ring sizes (power of two, as the kernel requires).  The fill ring is
 * refilled a whole batch at a time, so up to a batch of it may be empty:
 * the smallest ring keeps at least three quarters of it offered.
 */
#define AF_XDP_RING_MIN		(4 * AF_XDP_RX_BATCH)
#define AF_XDP_RING_MAX		16384
#define AF_XDP_RING_DEFAULT	2048

/* The ring size a queue of nb_desc descriptors gets. */
static inline uint32_t
af_xdp_ring_size(uint32_t nb_desc)
{
	return rte_align32pow2(RTE_MAX(nb_desc, (uint32_t)AF_XDP_RING_MIN));
}

/*
 * UMEM chunks start at the mbuf's buf_addr.  The kernel leaves
 * XDP_PACKET_HEADROOM in front of the frame, so a received frame starts
 * AF_XDP_FRAME_OFFSET bytes into the mbuf's buffer: that is its data_off.
 */
#define AF_XDP_PACKET_HEADROOM	256
#define AF_XDP_CHUNK_MIN	2048	/* XDP_UMEM_MIN_CHUNK_SIZE */

/* How a UMEM maps onto its mempool; pure arithmetic, see af_xdp_umem_layout(). */
struct af_xdp_umem_layout {
	uintptr_t area;		/* page-aligned start of the registered memory */
	size_t size;		/* registered length, whole pages */
	uintptr_t mbuf_base;	/* mbuf = mbuf_base + chunk address */
	uint32_t chunk_size;	/* bytes the kernel may use from buf_addr on */
	uint32_t max_frame;	/* largest frame a chunk holds */
};

struct af_xdp_umem {
	TAILQ_ENTRY(af_xdp_umem) next;	/* in the process-wide list */
	struct rte_mempool *mb_pool;
	struct af_xdp_umem_layout layout;
	int reg_fd;		/* a bound socket using it, for XDP_SHARED_UMEM */
	unsigned int users;	/* sockets using it */
	bool shareable;		/* shared_umem=1: other sockets may join */
};

struct af_xdp_rx_stats {
	uint64_t packets;
	uint64_t bytes;
	uint64_t nombuf;		/* mbufs the fill ring could not get */
	uint64_t full_batches;		/* batches of AF_XDP_RX_BATCH descriptors */
	uint64_t partial_batches;	/* shorter, non-empty batches */
	uint64_t wakeups;		/* syscalls made because the kernel asked */
};

struct af_xdp_tx_stats {
	uint64_t packets;
	uint64_t bytes;
	uint64_t errors;	/* frames dropped: too long, or no UMEM frame to copy into */
	uint64_t copies;	/* frames copied into the UMEM (foreign or chained mbufs) */
	uint64_t wakeups;
};

struct af_xdp_socket;

struct af_xdp_rx_queue {
	/* Everything a receive burst touches, first. */
	struct xsk_ring rx;		/* received frames */
	struct xsk_ring fill;		/* free chunks offered to the kernel */
	uintptr_t mbuf_base;		/* UMEM chunk address -> struct rte_mbuf * */
	uint64_t rearm_template;	/* rearm_data of a fresh mbuf, data_off 0 */
	struct rte_mempool *mb_pool;
	int fd;
	bool busy_poll;			/* syscall on empty polls to drive NAPI */
	bool fill_starved;		/* last refill failed: retry on every poll */
	uint32_t taken;			/* frames taken since the fill ring was topped up */
	uint32_t idle_polls;		/* empty polls, to look at the fill ring now and then */
	bool busy_poll_check;		/* see on the first frames if busy polling works */
	struct af_xdp_rx_stats stats;

	/* Set-up and control. */
	struct af_xdp_socket *sock;
	uint16_t port_id;
	uint16_t queue_id;
	uint32_t nb_desc;
	int socket_id;			/* NUMA */
} __rte_cache_aligned;

struct af_xdp_tx_queue {
	struct xsk_ring tx;		/* frames handed to the kernel */
	struct xsk_ring comp;		/* chunks the kernel is done with */
	uintptr_t mbuf_base;
	uintptr_t area;			/* UMEM start: chunk = buf_addr - area */
	struct rte_mempool *umem_pool;	/* the mempool that is the UMEM */
	uint32_t max_frame;
	int fd;
	uint32_t outstanding;		/* frames given to the kernel, not completed */
	struct af_xdp_tx_stats stats;

	struct af_xdp_socket *sock;
	uint16_t port_id;
	uint16_t queue_id;
	uint32_t nb_desc;
	int socket_id;
} __rte_cache_aligned;

/* One AF_XDP socket: serves Rx queue i and/or Tx queue i of a port. */
struct af_xdp_socket {
	int fd;
	uint32_t netdev_queue;		/* start_queue + i */
	struct af_xdp_umem *umem;
	struct xsk_ring rx, tx, fill, comp;
	void *maps[4];			/* mmap of each ring, for munmap */
	size_t map_len[4];
	bool zero_copy;
};

/* Kernel counters of one socket (XDP_STATISTICS). */
struct af_xdp_kernel_stats {
	uint64_t rx_dropped;
	uint64_t rx_invalid_descs;
	uint64_t tx_invalid_descs;
	uint64_t rx_ring_full;
	uint64_t rx_fill_ring_empty_descs;
	uint64_t tx_ring_empty_descs;
};

struct af_xdp_prog_attachment;
struct af_xdp_lsc;

/* Per-port private data, in shared memory so secondaries read the counters. */
struct af_xdp_port {
	char name[RTE_ETH_NAME_MAX_LEN];
	struct af_xdp_devargs args;
	int ifindex;
	struct rte_ether_addr mac;
	uint32_t max_queues;		/* the interface's channels */
	unsigned int iface_flags;	/* at probe: promiscuous/all-multicast restored at close */
	uint16_t port_id;
	bool started;

	/* Counters kept across socket re-creation (stop/start) and reset. */
	struct af_xdp_kernel_stats kstats_base[RTE_MAX_QUEUES_PER_PORT];

	/* Primary-only state. */
	struct af_xdp_socket *socks[RTE_MAX_QUEUES_PER_PORT];
	unsigned int nb_socks;
	/* The built-in program's redirect, resolved at probe (AUTO: not ours). */
	enum af_xdp_redirect redirect;
	int32_t redirect_xsk_helper;	/* from the kernel's BTF, for afxdp_direct */
	int32_t redirect_xsk_action;

	struct af_xdp_prog_attachment *prog;
	int xskmap_fd;			/* -1 when none */
	struct af_xdp_lsc *lsc;		/* link change events, while started */
};

/* af_xdp_umem.c */
int af_xdp_umem_layout(struct rte_mempool *mp, struct af_xdp_umem_layout *layout,
		       char *err, size_t err_len);
struct af_xdp_socket *af_xdp_socket_create(struct af_xdp_port *port, uint16_t idx,
					   struct rte_mempool *mp,
					   struct af_xdp_rx_queue *rxq,
					   struct af_xdp_tx_queue *txq);
void af_xdp_socket_destroy(struct af_xdp_port *port, struct af_xdp_socket *sock,
			   struct af_xdp_rx_queue *rxq, struct af_xdp_tx_queue *txq,
			   bool reclaim);
int af_xdp_socket_kernel_stats(int fd, struct af_xdp_kernel_stats *ks);

/* af_xdp_rx.c */
uint16_t af_xdp_rx_burst_scalar(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts);
#ifdef AF_XDP_HAVE_AVX2
uint16_t af_xdp_rx_burst_avx2(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts);
#endif
eth_rx_burst_t af_xdp_rx_burst_select(const char **name);
void af_xdp_rxq_bind(struct af_xdp_rx_queue *rxq, const struct xsk_ring *rx,
		     const struct xsk_ring *fill, const struct af_xdp_umem_layout *layout,
		     int fd);
unsigned int af_xdp_rxq_fill(struct af_xdp_rx_queue *rxq);
uint64_t af_xdp_rearm_template(uint16_t port_id);

/* af_xdp_tx.c */
uint16_t af_xdp_tx_burst(void *queue, struct rte_mbuf **bufs, uint16_t nb_pkts);
void af_xdp_txq_bind(struct af_xdp_tx_queue *txq, const struct xsk_ring *tx,
		     const struct xsk_ring *comp, const struct af_xdp_umem_layout *layout,
		     struct rte_mempool *umem_pool, int fd);
unsigned int af_xdp_txq_drain(struct af_xdp_tx_queue *txq);

/* af_xdp_iface.c */
int af_xdp_iface_index(const char *iface);
int af_xdp_iface_mac(const char *iface, struct rte_ether_addr *mac);
int af_xdp_iface_set_mac(const char *iface, const struct rte_ether_addr *mac);
int af_xdp_iface_flags(const char *iface, unsigned int *flags);
int af_xdp_iface_change_flags(const char *iface, unsigned int set, unsigned int clear);
int af_xdp_iface_mtu(const char *iface, unsigned int *mtu);
int af_xdp_iface_set_mtu(const char *iface, unsigned int mtu);
int af_xdp_iface_channels(const char *iface, uint32_t *max, uint32_t *configured);
int af_xdp_iface_speed(const char *iface, uint32_t *speed_mbps, bool *full_duplex);
int af_xdp_iface_napi_id(int fd, unsigned int *napi_id);
const char *af_xdp_iface_driver(const char *iface, char *buf, size_t len);

/* af_xdp_prog.c */

/* afxdp_direct's frames that did not go straight to a socket (its map's keys). */
enum af_xdp_fallback {
	AF_XDP_FALLBACK_VIA_MAP,	/* through the XSKMAP: not one socket on the queue */
	AF_XDP_FALLBACK_PASSED,		/* to the kernel stack: no socket on the queue */
	AF_XDP_FALLBACK_MAX,
};

int af_xdp_prog_choose_redirect(struct af_xdp_port *port);
int af_xdp_prog_fallbacks_fd(const struct af_xdp_port *port);
int af_xdp_prog_read_fallbacks(int fd, uint64_t counts[AF_XDP_FALLBACK_MAX]);
void af_xdp_prog_reset_fallbacks(int fd);
int af_xdp_prog_attach(struct af_xdp_port *port);
void af_xdp_prog_detach(struct af_xdp_port *port);
int af_xdp_prog_add_socket(struct af_xdp_port *port, uint32_t netdev_queue, int fd);
void af_xdp_prog_remove_socket(struct af_xdp_port *port, uint32_t netdev_queue);
bool af_xdp_prog_is_last_user(const struct af_xdp_port *port);
bool af_xdp_prog_is_ours(const struct af_xdp_port *port);
bool af_xdp_prog_is_direct(const struct af_xdp_port *port);

/* af_xdp_lsc.c */
int af_xdp_lsc_start(struct rte_eth_dev *dev);
void af_xdp_lsc_stop(struct rte_eth_dev *dev);

/* af_xdp_ethdev.c */
int af_xdp_link_update(struct rte_eth_dev *dev, int wait_to_complete);

/* af_xdp_cni.c */
int af_xdp_cni_get_xskmap(const struct af_xdp_port *port);

/* af_xdp_mp.c */
int af_xdp_mp_init_primary(void);
void af_xdp_mp_uninit_primary(void);
void af_xdp_mp_get_fds(const struct af_xdp_port *port, int *fds, uint16_t n);
int af_xdp_mp_get_fallbacks_fd(const struct af_xdp_port *port);

#endif /* AF_XDP_H */
