/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

#ifndef AF_XDP_RING_H
#define AF_XDP_RING_H

/*
 * The userspace side of one AF_XDP ring.
 *
 * A socket has four single-producer/single-consumer rings shared with the
 * kernel: Rx and Tx carry struct xdp_desc, fill and completion carry u64 UMEM
 * addresses.  Indexes are free-running u32 counters; an entry lives at
 * (index & mask).
 *
 * Each side caches both indexes so that the shared producer and consumer words
 * are read once per batch, not once per entry.  For a ring we consume,
 * cached_cons is our next entry and cached_prod the last producer value we
 * read.  For a ring we produce, cached_prod is our next entry and cached_cons
 * is the consumer value we read plus the ring size, so that
 * cached_cons - cached_prod is the free space.
 *
 * The rings live in memory mapped from the kernel, or, for unit tests and the
 * microbenchmark, in plain memory: nothing here makes a system call.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "af_xdp_uapi.h"

struct af_xdp_ring {
	uint32_t cached_prod;
	uint32_t cached_cons;
	uint32_t mask;
	uint32_t size;
	uint32_t *producer;
	uint32_t *consumer;
	uint32_t *flags;
	void *entries;		/* struct xdp_desc[size] or uint64_t[size] */
};

static __rte_always_inline struct xdp_desc *
af_xdp_ring_desc(const struct af_xdp_ring *r, uint32_t idx)
{
	return &((struct xdp_desc *)r->entries)[idx & r->mask];
}

static __rte_always_inline uint64_t *
af_xdp_ring_addr(const struct af_xdp_ring *r, uint32_t idx)
{
	return &((uint64_t *)r->entries)[idx & r->mask];
}

/*
 * Consumer: how many entries, at most n, are ready from cached_cons on.
 * The producer word is re-read only when the cached view has fewer than n.
 */
static __rte_always_inline uint32_t
af_xdp_ring_cons_peek(struct af_xdp_ring *r, uint32_t n)
{
	uint32_t ready = r->cached_prod - r->cached_cons;

	if (ready < n) {
		/*
		 * Acquire pairs with the kernel's release store of the
		 * producer (xskq_prod_submit): entries written before it are
		 * visible once we see the new index.
		 */
		r->cached_prod = __atomic_load_n(r->producer, __ATOMIC_ACQUIRE);
		ready = r->cached_prod - r->cached_cons;
	}
	return RTE_MIN(ready, n);
}

/* Consumer: hand n entries back to the producer. */
static __rte_always_inline void
af_xdp_ring_cons_release(struct af_xdp_ring *r, uint32_t n)
{
	r->cached_cons += n;
	/*
	 * Release orders our reads of the entries before the kernel may
	 * overwrite them; pairs with the kernel's acquire of the consumer.
	 */
	__atomic_store_n(r->consumer, r->cached_cons, __ATOMIC_RELEASE);
}

/*
 * Producer: how many entries, at most n, may be written from cached_prod on.
 * The consumer word is re-read only when the cached view has fewer than n.
 */
static __rte_always_inline uint32_t
af_xdp_ring_prod_space(struct af_xdp_ring *r, uint32_t n)
{
	uint32_t space = r->cached_cons - r->cached_prod;

	if (space < n) {
		/*
		 * Acquire orders the kernel's reads of the old entries (done
		 * before it released the consumer) before our new writes.
		 */
		r->cached_cons = __atomic_load_n(r->consumer, __ATOMIC_ACQUIRE) +
				 r->size;
		space = r->cached_cons - r->cached_prod;
	}
	return RTE_MIN(space, n);
}

/* Producer: publish n entries written from cached_prod on. */
static __rte_always_inline void
af_xdp_ring_prod_submit(struct af_xdp_ring *r, uint32_t n)
{
	r->cached_prod += n;
	/* Release makes the entries visible before the new producer index. */
	__atomic_store_n(r->producer, r->cached_prod, __ATOMIC_RELEASE);
}

/* The kernel sets XDP_RING_NEED_WAKEUP when it wants a syscall to make progress. */
static __rte_always_inline bool
af_xdp_ring_needs_wakeup(const struct af_xdp_ring *r)
{
	return __atomic_load_n(r->flags, __ATOMIC_RELAXED) & XDP_RING_NEED_WAKEUP;
}

/* Entries the producer has published that the consumer has not released. */
static inline uint32_t
af_xdp_ring_pending(const struct af_xdp_ring *r)
{
	return __atomic_load_n(r->producer, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(r->consumer, __ATOMIC_ACQUIRE);
}

#endif /* AF_XDP_RING_H */
