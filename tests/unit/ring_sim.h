/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef RING_SIM_H
#define RING_SIM_H

/*
 * The kernel's side of the four rings, in plain memory, for the unit tests
 * and the microbenchmark of the batch code: take chunks from the fill ring
 * and produce Rx descriptors for them (as copy-mode AF_XDP does: the frame
 * at XDP_PACKET_HEADROOM into the chunk), consume Tx descriptors and
 * complete them.  It follows the ring protocol only; it is not evidence of
 * how the kernel behaves (the integration tests are).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "af_xdp.h"
#include "af_xdp_rx.h"
#include "af_xdp_tx.h"
#include "af_xdp_umem.h"

struct sim_ring {
	uint32_t producer __rte_cache_aligned;
	uint32_t consumer __rte_cache_aligned;
	uint32_t flags __rte_cache_aligned;
	uint32_t size;
	void *entries;
	struct af_xdp_ring view;	/* what the driver is given */
};

/* Indexes start near 2^32 so that every test also crosses the u32 wrap. */
#define SIM_START_INDEX (UINT32_MAX - 100u)

static inline void
sim_ring_init(struct sim_ring *r, uint32_t size, size_t entry, bool produced_by_driver)
{
	memset(r, 0, sizeof(*r));
	r->size = size;
	r->entries = calloc(size, entry);
	r->producer = SIM_START_INDEX;
	r->consumer = SIM_START_INDEX;
	r->view = (struct af_xdp_ring) {
		.cached_prod = SIM_START_INDEX,
		.cached_cons = SIM_START_INDEX + (produced_by_driver ? size : 0),
		.mask = size - 1,
		.size = size,
		.producer = &r->producer,
		.consumer = &r->consumer,
		.flags = &r->flags,
		.entries = r->entries,
	};
}

static inline void
sim_ring_free(struct sim_ring *r)
{
	free(r->entries);
}

/*
 * Kernel receive of n frames of the given lengths (lens cycles when shorter
 * than n), as copy-mode AF_XDP does with multi-buffer: a frame takes one
 * fill entry and one Rx descriptor per frame_size bytes (the frame at
 * XDP_PACKET_HEADROOM into each chunk, XDP_PKT_CONTD on all descriptors but
 * its last), all or none: a frame without enough fill entries or Rx slots
 * stops the receive.  Writes a pattern (frame index + byte offset in the
 * frame) when fill_data is set.  Returns the frames received.
 */
static inline uint32_t
sim_kernel_receive_mb(struct sim_ring *fill, struct sim_ring *rx, uintptr_t area,
		      uint32_t frame_size, const uint32_t *lens, uint32_t nb_lens, uint32_t n,
		      bool fill_data, uint32_t *seq)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		const uint64_t off = AF_XDP_PACKET_HEADROOM;
		uint32_t len = lens[*seq % nb_lens];
		uint32_t descs = len == 0 ? 0 : (len - 1) / frame_size + 1, k, done = 0;

		if (len == 0 || fill->producer - fill->consumer < descs ||
		    rx->size - (rx->producer - rx->consumer) < descs)
			break;
		for (k = 0; k < descs; k++) {
			uint64_t chunk = ((uint64_t *)fill->entries)[fill->consumer & (fill->size - 1)];
			struct xdp_desc *d =
				&((struct xdp_desc *)rx->entries)[rx->producer & (rx->size - 1)];
			uint32_t seg = RTE_MIN(frame_size, len - done);

			fill->consumer++;
			if (fill_data) {
				uint8_t *p = (uint8_t *)(area + chunk + off);
				uint32_t b;

				for (b = 0; b < seg; b++)
					p[b] = (uint8_t)(*seq + done + b);
			}
			d->addr = chunk | (off << XSK_UNALIGNED_BUF_OFFSET_SHIFT);
			d->len = seg;
			d->options = k + 1 < descs ? XDP_PKT_CONTD : 0;
			rx->producer++;
			done += seg;
		}
		(*seq)++;
	}
	return i;
}

/* The same, every frame in one descriptor whatever its length. */
static inline uint32_t
sim_kernel_receive(struct sim_ring *fill, struct sim_ring *rx, uintptr_t area,
		   const uint32_t *lens, uint32_t nb_lens, uint32_t n, bool fill_data,
		   uint32_t *seq)
{
	return sim_kernel_receive_mb(fill, rx, area, UINT32_MAX, lens, nb_lens, n, fill_data, seq);
}

/*
 * The kernel takes up to n chunks from the fill ring and keeps them (as it
 * does with a frame it drops, or a zero-copy driver with its buffers).
 * Returns how many.
 */
static inline uint32_t
sim_kernel_keep(struct sim_ring *fill, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n && fill->producer != fill->consumer; i++)
		fill->consumer++;
	return i;
}

/*
 * The kernel takes the next Tx descriptor (copy mode: an skb in flight
 * until the device frees it); NULL when the Tx ring is empty.
 */
static inline const struct xdp_desc *
sim_kernel_take_one(struct sim_ring *tx)
{
	const struct xdp_desc *d;

	if (tx->consumer == tx->producer)
		return NULL;
	d = &((const struct xdp_desc *)tx->entries)[tx->consumer & (tx->size - 1)];
	tx->consumer++;
	return d;
}

/* The kernel completes the frame at addr (the completion ring has room). */
static inline void
sim_kernel_complete(struct sim_ring *comp, uint64_t addr)
{
	((uint64_t *)comp->entries)[comp->producer & (comp->size - 1)] = addr;
	comp->producer++;
}

/*
 * Kernel transmit of one frame: the next Tx descriptor consumed and
 * completed (sent or dropped), copied to *sent when not NULL.  False when
 * the Tx ring is empty or the completion ring full.
 */
static inline bool
sim_kernel_complete_one(struct sim_ring *tx, struct sim_ring *comp, struct xdp_desc *sent)
{
	const struct xdp_desc *d;

	if (comp->producer - comp->consumer >= comp->size || (d = sim_kernel_take_one(tx)) == NULL)
		return false;
	if (sent != NULL)
		*sent = *d;
	sim_kernel_complete(comp, d->addr);
	return true;
}

/* Kernel transmit: every Tx descriptor consumed and completed. */
static inline uint32_t
sim_kernel_transmit(struct sim_ring *tx, struct sim_ring *comp, struct xdp_desc *sent,
		    uint32_t max_sent)
{
	uint32_t n = 0;

	while (sim_kernel_complete_one(tx, comp, sent != NULL && n < max_sent ? &sent[n] : NULL))
		n++;
	return n;
}

/*
 * EAL for mempools only: no devices, no shared files, and no hugepages
 * unless huge_dir names a hugetlbfs mount (the microbenchmark's --huge-dir).
 */
static inline int
sim_eal_init_huge(const char *prog, const char *huge_dir)
{
	char *argv[] = { (char *)(uintptr_t)prog, "-m", "256", "--no-pci", "--no-shconf",
			 "--log-level=lib.eal:error", "-c", "0x1",
			 huge_dir ? "--huge-dir" : "--no-huge", (char *)(uintptr_t)huge_dir, NULL };
	int argc = (int)RTE_DIM(argv) - (huge_dir ? 1 : 2);

	return rte_eal_init(argc, argv);
}

static inline int
sim_eal_init(const char *prog)
{
	return sim_eal_init_huge(prog, NULL);
}

#endif /* RING_SIM_H */
