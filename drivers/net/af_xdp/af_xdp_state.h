/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_STATE_H
#define AF_XDP_STATE_H

/*
 * The port's state as data: the ethdev op eth_dev_priv_dump writes a block
 * of "key = value" lines (doc/guides/nics/af_xdp_direct.rst, "Port state"),
 * which DPDK publishes as telemetry /ethdev/dump_priv,<port> and through
 * dpdk-proc-info --show-port-private.  A secondary process writes the same
 * block as the primary: everything in it is read from shared memory (the
 * port, its queues and sockets), from the kernel, or from what the primary
 * recorded here when the port started.
 */

#include <stdint.h>
#include <stdio.h>

#include "af_xdp_bpf_abi.h"
#include "af_xdp_devargs.h"

/*
 * What a start found: kept in the port (shared memory), so that a
 * secondary process reports what the primary found, and as values, not
 * pointers, so that a dump racing a stop (telemetry runs in a thread of
 * its own) reads nothing freed.  Zero while the port is stopped.
 */
struct af_xdp_state_record {
	char rx_build[16];		/* the receive burst's build: baseline, x86-64-v3 */
	char prog_name[16];		/* the XDP program steering to our XSKMAP */
	uint32_t prog_id;		/* its id; 0: none found on the interface */
	uint32_t iface_prog_id;		/* the interface's program: prog_id, or the dispatcher */
	enum af_xdp_attach_mode attach_mode;	/* AUTO: not known */
	struct af_xdp_owner owner;	/* the built-in program's mark; magic 0 if none */
};

/* The same for the socket of one queue index. */
struct af_xdp_state_queue {
	char pool[32];			/* the mempool that is the UMEM (RTE_MEMPOOL_NAMESIZE) */
	uintptr_t umem_area;		/* the registered memory */
	size_t umem_length;
	size_t umem_gap_bytes;		/* DPDK memory in it between the pool's chunks */
	uint32_t chunk_size;
	uint32_t frame_max;
	uint32_t netdev_queue;
	uint32_t ring_rx, ring_fill, ring_tx, ring_comp;
	uint32_t tx_budget;		/* XDP_MAX_TX_SKB_BUDGET set; 0: the kernel's default */
	uint32_t tx_meta_len;		/* Tx metadata the UMEM was registered with; 0: none */
	bool zero_copy;
	bool multi_buffer;
	bool umem_registered;		/* this socket registered the UMEM; else joined it */
	bool umem_own;			/* the UMEM is the driver's, not the mempool */
	uint8_t umem_own_why;		/* enum af_xdp_umem_why: why */
};

struct rte_eth_dev;

/* At the end of a successful start (primary): record what it found. */
void af_xdp_state_started(struct rte_eth_dev *dev, const char *rx_build);

/* At stop (primary): nothing recorded is true any more. */
void af_xdp_state_stopped(struct rte_eth_dev *dev);

/* The eth_dev_priv_dump op, in either process. */
int af_xdp_state_dump(struct rte_eth_dev *dev, FILE *f);

#endif /* AF_XDP_STATE_H */
