/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_H
#define AF_XDP_H

/*
 * The private types of the extended AF_XDP PMD, shared by its files.  Each
 * file owns one concern and declares its functions in a header of the same
 * name; this one holds only what several of them need to see:
 *
 *   af_xdp_ethdev.c   probe/remove and the ethdev ops: configure, start/stop,
 *                     close, info, MTU, MAC, promiscuous, queue set-up
 *   af_xdp_link.c     link state: update, set up/down, change events
 *   af_xdp_devargs.c  devargs parsing and validation (no side effects)
 *   af_xdp_iface.c    the kernel interface: index, MAC, flags, MTU, channels
 *   af_xdp_frame.c    frame sizes, MTU limits, multi-buffer (XDP_USE_SG) or not
 *   af_xdp_umem.c     the mempool as UMEM: layout, registration, sharing
 *   af_xdp_socket.c   the AF_XDP socket: rings, bind, close, options (busy
 *                     polling), kernel counters
 *   af_xdp_rx.c       the 64-descriptor batched receive and the fill ring
 *   af_xdp_rx_x86_64_v3.c  the same receive, built for x86-64-v3
 *   af_xdp_rx_offload.c  Rx offloads: the XDP metadata's (hash, VLAN, stamp), checksums
 *   af_xdp_tx.c       transmit and the completion ring
 *   af_xdp_csum.c     Tx checksum offloads: checks, tx_pkt_prepare, who computes
 *   af_xdp_prog.c     the XDP program: load, attach, detach, XSKMAP
 *   af_xdp_builtin.c  the built-in program: redirect policy, preparation, counters
 *   af_xdp_orphan.c   copies of it left by dead processes: removed, or named
 *   af_xdp_libxdp.c   libbpf's and libxdp's logs and errors, libxdp's attach/detach
 *   af_xdp_owner.c    the built-in program's owner mark: whose copy, still running
 *   af_xdp_kernel.c   what the running kernel offers (direct redirect)
 *   af_xdp_kstats.c   the kernel's per-socket counters: names and arithmetic
 *   af_xdp_stats.c    the ethdev statistics and xstats ops
 *   af_xdp_state.c    the port's state as key = value lines (dump_priv)
 *   af_xdp_mp.c       secondary processes: socket fds for statistics
 *   af_xdp_lend.c     the descriptors a started port lends to secondaries
 *   af_xdp_intr.c     sleeping when idle: Rx interrupts, power-management monitor
 *   af_xdp_cni.c      the AF_XDP device plugin for Kubernetes (use_cni)
 *   af_xdp_log.c      the log type
 *   af_xdp_version.c  which DPDK releases may run the plugin
 *   af_xdp_ring.h     the userspace side of one AF_XDP ring
 *   af_xdp_bpf_abi.h  what the built-in XDP programs and the driver share
 *   af_xdp_compat.h   where the DPDK releases it builds against differ
 *   af_xdp_uapi.h     the kernel's AF_XDP UAPI that older headers lack
 *
 * Words used with one meaning each: a *queue* is an ethdev Rx or Tx queue;
 * a *socket* is the AF_XDP socket serving the queue pair of one index; a
 * *ring* is one of the socket's four rings; the *UMEM* is the packet memory
 * registered with the kernel, which is the mbuf mempool itself, or where
 * that mempool cannot be one, a pool the driver owns (af_xdp_umem.c).
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <net/if.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "af_xdp_devargs.h"
#include "af_xdp_frame.h"
#include "af_xdp_kstats.h"
#include "af_xdp_ring.h"
#include "af_xdp_state.h"

#define AF_XDP_DRIVER_NAME	net_af_xdp
#define AF_XDP_PROJECT		"af_xdp_direct"

extern int af_xdp_logtype;
#define AF_XDP_LOG_AT(level, fmt, ...) \
	rte_log(level, af_xdp_logtype, "%s(): " fmt "\n", __func__, ##__VA_ARGS__)
#define AF_XDP_LOG(level, ...) AF_XDP_LOG_AT(RTE_LOG_ ## level, __VA_ARGS__)
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
 * AF_XDP_PACKET_HEADROOM bytes into the mbuf's buffer: that is its data_off.
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
	uint32_t pool_chunks;	/* the mempool's memory chunks (rte_mempool_mem_iter) */
	size_t gap_bytes;	/* DPDK memory between them, not the pool's: 0 for one area */
};

struct af_xdp_rx_stats {
	uint64_t packets;
	uint64_t bytes;
	/*
	 * Mbufs the fill ring could not get, each counted once: a refill
	 * that runs out of mbufs starts (or continues) a shortage and counts
	 * the whole batches of the ring it left empty, beyond the most
	 * already counted in this shortage; the retries of every poll
	 * count nothing more unless the ring empties further.  A refill that
	 * tops the ring up ends the shortage.  So a mempool permanently 1000
	 * mbufs short of the ring counts about 1000, not 64 per poll.
	 */
	uint64_t nombuf;
	uint64_t full_batches;		/* batches of AF_XDP_RX_BATCH descriptors */
	uint64_t partial_batches;	/* shorter, non-empty batches */
	uint64_t wakeups;		/* syscalls made because the kernel asked */
	uint64_t multi_buffer;		/* frames of more than one descriptor, delivered */
	uint64_t chains_dropped;	/* multi-descriptor frames dropped: no scatter, too long */
	/* The driver's UMEM (af_xdp_rx_burst_copy()): */
	uint64_t copies;		/* frames copied into the application's mbufs */
	uint64_t copy_nombuf;		/* frames dropped: the application's pool was empty */
};

struct af_xdp_tx_stats {
	uint64_t packets;
	uint64_t bytes;
	/*
	 * Frames too long (MTU; a chunk without multi-buffer), or whose
	 * checksum request af_xdp_tx_csum_check() refuses, freed.
	 */
	uint64_t dropped;
	uint64_t too_many_segs;	/* frames of more descriptors than the kernel takes, freed */
	uint64_t copies;	/* frames copied into the UMEM (foreign, shared or long mbufs) */
	uint64_t multi_buffer;	/* frames sent as several descriptors */
	uint64_t wakeups;
	uint64_t csum_kernel;	/* frames whose L4 checksum the kernel completes */
	uint64_t csum_sw;	/* frames whose asked checksums the driver computed all of */
	/*
	 * The kicks (copy mode sends in them): sendto() said EAGAIN or EBUSY
	 * (the kernel could not take a frame then), or failed otherwise; and
	 * the bursts that stopped kicking on such a failure with descriptors
	 * still in the Tx ring, which wait for the next burst's kick; and the
	 * bursts that did not kick while the queue was refused (kick_refused).
	 */
	uint64_t kick_busy;
	uint64_t kick_errors;
	uint64_t kick_stalls;
	uint64_t kick_waits;
};

/*
 * A frame of several descriptors (XDP_PKT_CONTD on all but the last) while
 * its segments are linked: kept in the queue from one burst to the next
 * when its last descriptors have not been taken yet.  head's nb_segs and
 * pkt_len are kept true, so that the chain can be freed whole at any time.
 */
struct af_xdp_rx_chain {
	struct rte_mbuf *head;		/* NULL: no frame being assembled */
	struct rte_mbuf *tail;
};

struct af_xdp_rx_queue {
	/* Everything a receive burst touches, first. */
	struct af_xdp_ring rx;		/* received frames */
	struct af_xdp_ring fill;		/* free chunks offered to the kernel */
	uintptr_t mbuf_base;		/* UMEM chunk address -> struct rte_mbuf * */
	uint64_t rearm_template;	/* rearm_data of a fresh mbuf, data_off 0 */
	uint64_t offered_mark;		/* rearm_data of an mbuf offered in the fill ring */
	struct rte_mempool *mb_pool;
	int fd;
	bool busy_poll;			/* syscall on empty polls to drive NAPI */
	/*
	 * Non-zero during a shortage (the last refill ran out of mbufs: retry
	 * on every poll): the most fill-ring slots it has left empty, counted
	 * in stats.nombuf.
	 */
	uint32_t fill_shortfall;
	uint32_t taken;			/* descriptors taken since the fill ring was topped up */
	uint32_t idle_polls;		/* empty polls, to look at the fill ring now and then */
	bool busy_poll_check;		/* see on the first frames if busy polling works */
	bool scatter;			/* multi-descriptor frames delivered as mbuf chains */
	/* Rx offloads from the XDP metadata (af_xdp_rx.h): */
	uint64_t rx_meta_ol;		/* the mbuf flags they may set; 0: none */
	uintptr_t meta_delta;		/* mbuf + frame offset + this: its struct af_xdp_rx_meta */
	int32_t timestamp_offset;	/* the timestamp dynamic field's; -1 without TIMESTAMP */
	struct af_xdp_rx_chain chain;
	struct af_xdp_rx_stats stats;

	/* Set-up and control. */
	uint16_t port_id;
	uint16_t queue_id;
	uint32_t nb_desc;
	bool busy_poll_asked;		/* busy_budget given: no NAPI id is worth a warning */
	/* A closed socket the kernel still held, and its offered mark: af_xdp_rxq_hold(). */
	bool held;
	uint64_t held_mark;
	bool zero_copy;			/* the socket's mode, for counting what it missed */
	/*
	 * The application's mempool.  mb_pool, which the fill ring takes
	 * from, is the same, or while the socket is on the driver's UMEM its
	 * pool; then the copy burst (af_xdp_rx_burst_copy()) takes frames
	 * with copy_inner and copies each into mbufs of app_pool.  copy_inner
	 * is a function of the primary's mapping of the plugin, meaningless in
	 * a secondary (which maps it elsewhere): only the primary receives.
	 */
	struct rte_mempool *app_pool;
	eth_rx_burst_t copy_inner;
} __rte_cache_aligned;

/* Descriptors one Tx frame may take at most, whatever the kernel allows. */
#define AF_XDP_TX_MAX_SEGS	64

struct af_xdp_tx_queue {
	struct af_xdp_ring tx;		/* frames handed to the kernel */
	struct af_xdp_ring comp;		/* chunks the kernel is done with */
	uintptr_t mbuf_base;
	struct rte_mempool *umem_pool;	/* the mempool that is the UMEM */
	uint32_t max_frame;		/* longest frame sent as one mbuf in place */
	uint32_t chunk_size;		/* the most a descriptor takes (the chunk less Tx metadata) */
	uint32_t max_pkt_len;		/* longest frame the interface takes */
	uint16_t max_segs;		/* descriptors per frame: 1 without multi-buffer */
	int fd;
	uint32_t outstanding;		/* descriptors given to the kernel, not completed */
	/*
	 * The last kick was refused (EAGAIN, no descriptor taken) while
	 * frames were in flight: no kick until one completes (tx_wakeup()).
	 */
	bool kick_refused;
	bool csum_by_kernel;		/* L4 checksums left to the kernel: af_xdp_csum.h */
	/*
	 * The metadata's flags zeroed in front of every descriptor without a
	 * request: a zero-copy socket whose UMEM has Tx metadata, which some
	 * kernels read whatever the options (af_xdp_tx.c).
	 */
	bool meta_clear;
	struct af_xdp_tx_stats stats;

	uint16_t port_id;
	uint16_t queue_id;
	uint32_t nb_desc;
	/*
	 * The mbufs of a closed socket's descriptors the kernel had not
	 * completed, kept until it has let go of the socket:
	 * af_xdp_txq_release().
	 */
	struct rte_mbuf **held;
	uint32_t nb_held;
} __rte_cache_aligned;

struct af_xdp_umem;

/* One AF_XDP socket: serves Rx queue i and/or Tx queue i of a port. */
struct af_xdp_socket {
	int fd;
	uint32_t netdev_queue;		/* start_queue + i */
	struct af_xdp_umem *umem;
	struct af_xdp_ring rx, tx, fill, comp;
	void *maps[4];			/* mmap of each ring, for munmap */
	size_t map_len[4];
	bool zero_copy;
	bool multi_buffer;		/* bound with XDP_USE_SG: frames of several descriptors */
	/*
	 * The driver's UMEM pool (af_xdp_umem_own_pool()), NULL when the
	 * application's mempool is the UMEM: freed by whoever closes the
	 * socket, once the kernel holds none of its chunks.
	 */
	struct rte_mempool *own_pool;
	uint32_t tx_budget;		/* descriptors per sendto() we set; 0: the kernel's default */
};

/* What a port keeps per queue index, for queue_count indexes. */
struct af_xdp_port_queue {
	/* Kernel counters kept across socket re-creation (stop/start) and reset. */
	struct af_xdp_kernel_stats kstats_base;
	struct af_xdp_socket *sock;	/* primary only; NULL while stopped */
	struct af_xdp_state_queue state;	/* what start found of it, for dump_priv */
	/*
	 * Primary only: the driver's UMEM pool of a closed socket the kernel
	 * may still have had (a NIC's zero-copy, a copy of the descriptor in
	 * another process): freed once the queue is bound again or found free.
	 */
	struct rte_mempool *kept_pool;
};

struct af_xdp_prog_attachment;
struct af_xdp_link_events;

/*
 * Why a port offers the Rx metadata offloads it does (af_xdp_rx_offload.c):
 * an enum, not a string, in the port's shared data, since a secondary maps
 * the plugin's strings elsewhere.
 */
enum af_xdp_rx_capa_why {
	AF_XDP_RX_CAPA_IFACE_KFUNCS,		/* netlink lists the interface's kfuncs */
	AF_XDP_RX_CAPA_IFACE_LACKS_KFUNCS,	/* it lists none: the stamp alone */
	AF_XDP_RX_CAPA_IFACE_UNKNOWN,		/* netlink says nothing: the stamp alone */
	AF_XDP_RX_CAPA_KERNEL_LACKS_KFUNCS,	/* not in its BTF: the program cannot load */
	AF_XDP_RX_CAPA_NOT_NATIVE,		/* device-bound programs run native only */
	AF_XDP_RX_CAPA_NOT_BUILTIN,		/* no program of ours writes the values */
	AF_XDP_RX_CAPA_KERNEL_REFUSED,		/* it refused the program, or some of it */
	AF_XDP_RX_CAPA_NOT_PERMITTED,		/* the process may not load BPF programs */
};

/* What the verifier refused of the Rx-metadata program: a helper's or function's name. */
#define AF_XDP_RX_REFUSED_LEN 48

/* Why a mempool cannot be a UMEM itself, and the driver owns one instead. */
enum af_xdp_umem_why {
	AF_XDP_UMEM_WHY_NONE,			/* it can: the mempool is the UMEM */
	AF_XDP_UMEM_WHY_PINNED_EXT_BUF,		/* pinned external data buffers */
	AF_XDP_UMEM_WHY_DISCONTIGUOUS,		/* areas apart, not DPDK's memory between */
};

/* Per-port private data, in shared memory so secondaries read the counters. */
struct af_xdp_port {
	char name[RTE_ETH_NAME_MAX_LEN];
	struct af_xdp_devargs args;
	int ifindex;
	struct rte_ether_addr mac;
	uint32_t max_queues;		/* the interface's channels */
	uint16_t port_id;
	bool started;
	/*
	 * From start: the sockets are on UMEMs the driver owns, and why (an
	 * Rx mempool that cannot be one; the first such queue's reason).
	 */
	bool own_umem;
	enum af_xdp_umem_why own_umem_why;
	struct af_xdp_frame frame;	/* frame sizes, MTU, multi-buffer: af_xdp_frame.h */
	struct af_xdp_state_record state;	/* what start found, for dump_priv */

	/*
	 * Written by the primary only.  A secondary reads the plain values
	 * (its state dump, the redirect when it asks for the counters map),
	 * never the pointers or the descriptors, which are the primary's.
	 */
	unsigned int nb_socks;		/* queue indexes with a socket, from 0 */
	/*
	 * What the running kernel offers, found at probe (af_xdp_kernel.c) and
	 * kept, so that the state block asks the kernel nothing: a secondary
	 * would otherwise load probe programs to print them.
	 */
	bool kernel_direct;		/* bpf_redirect_xsk */
	bool kernel_batched_map;	/* an XSKMAP's redirects received in batches */
	bool kernel_multi_buffer;	/* XDP_USE_SG */
	uint8_t kernel_multi_buffer_why;	/* enum af_xdp_kernel_mb_why */
	/* The built-in program's redirect, resolved at probe (AUTO: not ours). */
	enum af_xdp_redirect redirect;
	int32_t redirect_xsk_helper;	/* from the kernel's BTF, for afxdp_direct */
	int32_t redirect_xsk_action;
	/*
	 * The Rx metadata offloads the port can offer, and why: found at
	 * probe, by loading the program (af_xdp_rx_offload.c): what was tried
	 * (AF_XDP_RX_META_*, 0 if nothing) and what the verifier refused ("").
	 */
	uint64_t rx_meta_capa;
	enum af_xdp_rx_capa_why rx_meta_capa_why;
	uint32_t rx_meta_probed;
	char rx_meta_refused[AF_XDP_RX_REFUSED_LEN];
	/*
	 * The interface's xsk-features (NETDEV_GENL_XSK_FLAGS_*: what its
	 * zero-copy transmit takes from Tx metadata), where the kernel reports
	 * them (xsk_features_known): found at probe.
	 */
	bool xsk_features_known;
	uint64_t xsk_features;
	/*
	 * AF_XDP_RX_META_* the configuration needs (the program bound to the
	 * interface): those its Rx offloads ask for, and the RSS hash an RSS
	 * mode implies (rx_meta_implied), as a NIC's PMD delivers it.
	 */
	uint32_t rx_meta_conf;
	uint32_t rx_meta_implied;	/* given up where the bound program cannot run */
	uint32_t rx_meta;		/* in force from start: rx_meta_conf, less what was given up */
	bool rx_cksum;			/* RTE_ETH_RX_OFFLOAD_IPV4_CKSUM: the burst checks headers */
	int rx_timestamp_offset;	/* the timestamp dynamic field, with TIMESTAMP */
	uint64_t rx_timestamp_flag;	/* and its flag */

	struct af_xdp_prog_attachment *prog;
	int xskmap_fd;			/* -1 when none */
	struct af_xdp_link_events *link_events;	/* while started, with intr_conf.lsc */

	struct af_xdp_port_queue queues[];	/* args.queue_count of them */
};

#endif /* AF_XDP_H */
