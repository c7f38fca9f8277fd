/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The AF_XDP method, where live frames are refused: one AF_XDP socket per
 * sending thread, bound in copy mode (XDP_COPY) to its own transmit queue of
 * the interface, with a UMEM of its own in which the thread's template is
 * written once per frame slot.  Each round stamps what varies (sequence
 * number, flow) into free slots, puts them into the Tx ring in a batch and
 * kicks the kernel with sendto(); the kernel builds an skb of each frame
 * (the copy of copy mode) and hands it to the driver directly, bypassing the
 * qdisc, in the sendto() call itself.  Completions give the slots back.
 *
 * Counts are exact: every frame the kernel takes from the Tx ring comes
 * back in the completion ring once its skb is freed, whether the driver took
 * it or dropped it; and a drop ends that sendto() with EBUSY (one frame each
 * time: "SKB completed but not sent", freed, so completed, before the call
 * returns).  A full device queue (NETDEV_TX_BUSY) gives the descriptor back
 * to the ring (EAGAIN) and it is sent again with the same numbers.  So
 * frames taken = completed - EBUSY, per socket, and each thread sends until
 * its share is taken.  gen_main.c checks that against the veth's own
 * counters.
 *
 * Completions, not the Tx ring's consumer index: kernels before 6.15 or so
 * publish that index lazily (when their cached view of the ring runs dry, not
 * at the end of each sendto()), so it can lag behind what was sent and
 * dropped.  The consumer index only tells how much room the ring has, and a
 * lag there only holds back the next batch until a sendto() publishes it.
 *
 * Copy mode transmits only inside sendto(): once the thread stops calling
 * it, what the kernel took is final; its last completions arrive as the peer
 * frees the last skbs (gen_xsk_reap()).
 */

#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/if_xdp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>

#include "gen.h"

#ifndef AF_XDP
#define AF_XDP 44
#endif
#ifndef SOL_XDP
#define SOL_XDP 283
#endif
#ifndef XDP_MAX_TX_SKB_BUDGET
#define XDP_MAX_TX_SKB_BUDGET 9		/* Linux 6.17+ */
#endif

/* Ring sizes: the completion ring holds every frame slot, so it never fills. */
#define XSK_TX_RING	2048u
#define XSK_FRAMES	4096u
#define XSK_CQ_RING	XSK_FRAMES
#define XSK_FQ_RING	64u		/* required by bind(); this socket receives nothing */
#define XSK_KERNEL_BUDGET 32u		/* frames per sendto() unless raised */
#define XSK_BIND_TRIES	1000u		/* bind() retries while the queue is busy, */
#define XSK_BIND_WAIT_US 10000u		/* 10 ms apart: 10 s */

static int
map_ring(int fd, struct gen_xsk_ring *r, const struct xdp_ring_offset *off, uint32_t n,
	 size_t desc_size, off_t pgoff)
{
	r->map_len = off->desc + (size_t)n * desc_size;
	r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, pgoff);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		return -errno;
	}
	r->producer = (uint32_t *)((char *)r->map + off->producer);
	r->consumer = (uint32_t *)((char *)r->map + off->consumer);
	r->desc = (char *)r->map + off->desc;
	r->size = n;
	r->mask = n - 1;
	return 0;
}

static void
unmap_ring(struct gen_xsk_ring *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
	r->map = NULL;
}

int
gen_xsk_open(struct gen_xsk *x, int ifindex, unsigned int queue, const uint8_t *frame,
	     unsigned int size, const struct gen_cfg *cfg, unsigned int batch, char *err,
	     size_t errlen)
{
	struct sockaddr_xdp sxdp = {
		.sxdp_family = AF_XDP,
		.sxdp_ifindex = (uint32_t)ifindex,
		.sxdp_queue_id = queue,
		.sxdp_flags = XDP_COPY,
	};
	struct xdp_umem_reg reg;
	struct xdp_mmap_offsets off;
	socklen_t optlen = sizeof(off);
	uint32_t n;
	int ret;

	memset(x, 0, sizeof(*x));
	x->fd = -1;
	x->queue = queue;
	x->size = size;
	x->cfg = cfg;
	x->batch = batch;
	/* Aligned chunks are a power of two from 2048 to the page size. */
	x->frame_size = size <= 2048 ? 2048 : 4096;
	if (size > x->frame_size || x->frame_size > (unsigned int)sysconf(_SC_PAGESIZE)) {
		snprintf(err, errlen, "frames of %u bytes do not fit a UMEM chunk of %ld bytes "
			 "(the page size): AF_XDP without multi-buffer", size, sysconf(_SC_PAGESIZE));
		return -EMSGSIZE;
	}
	x->nframes = XSK_FRAMES;
	x->umem_len = (size_t)x->nframes * x->frame_size;
	x->umem = mmap(NULL, x->umem_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (x->umem == MAP_FAILED) {
		x->umem = NULL;
		snprintf(err, errlen, "cannot map a UMEM of %zu bytes: %s", x->umem_len, strerror(errno));
		return -ENOMEM;
	}
	x->free_addrs = malloc(x->nframes * sizeof(*x->free_addrs));
	if (!x->free_addrs) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto fail;
	}
	/* The template, once per slot: a round only stamps what varies. */
	for (uint32_t i = 0; i < x->nframes; i++) {
		memcpy(x->umem + (size_t)i * x->frame_size, frame, size);
		x->free_addrs[i] = (uint64_t)i * x->frame_size;
	}
	x->nfree = x->nframes;

	x->fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (x->fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot open an AF_XDP socket: %s%s", strerror(-ret),
			 ret == -EAFNOSUPPORT ? " (a kernel without CONFIG_XDP_SOCKETS)" :
			 ret == -EPERM ? " (needs root or CAP_NET_RAW)" : "");
		goto fail;
	}
	memset(&reg, 0, sizeof(reg));
	reg.addr = (uint64_t)(uintptr_t)x->umem;
	reg.len = x->umem_len;
	reg.chunk_size = x->frame_size;
	if (setsockopt(x->fd, SOL_XDP, XDP_UMEM_REG, &reg, sizeof(reg)) < 0) {
		ret = -errno;
		snprintf(err, errlen, "XDP_UMEM_REG of %zu bytes: %s", x->umem_len, strerror(-ret));
		goto fail;
	}
	n = XSK_FQ_RING;
	if (setsockopt(x->fd, SOL_XDP, XDP_UMEM_FILL_RING, &n, sizeof(n)) < 0)
		goto ring_fail;
	n = XSK_CQ_RING;
	if (setsockopt(x->fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, &n, sizeof(n)) < 0)
		goto ring_fail;
	n = XSK_TX_RING;
	if (setsockopt(x->fd, SOL_XDP, XDP_TX_RING, &n, sizeof(n)) < 0)
		goto ring_fail;
	if (getsockopt(x->fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &optlen) < 0)
		goto ring_fail;
	ret = map_ring(x->fd, &x->tx, &off.tx, XSK_TX_RING, sizeof(struct xdp_desc), XDP_PGOFF_TX_RING);
	if (ret == 0)
		ret = map_ring(x->fd, &x->cq, &off.cr, XSK_CQ_RING, sizeof(uint64_t),
			       (off_t)XDP_UMEM_PGOFF_COMPLETION_RING);
	if (ret == 0)
		ret = map_ring(x->fd, &x->fq, &off.fr, XSK_FQ_RING, sizeof(uint64_t),
			       (off_t)XDP_UMEM_PGOFF_FILL_RING);
	if (ret < 0) {
		snprintf(err, errlen, "cannot map the AF_XDP rings: %s", strerror(-ret));
		goto fail;
	}
	/*
	 * A socket closed a moment ago (the previous run's) keeps its queue
	 * until the kernel's deferred release of its buffer pool (a work item:
	 * over 2 s on a machine at load 8, seen in a CI run): EBUSY for a
	 * while.  Another socket still bound keeps it for good.
	 */
	for (unsigned int tries = 0;; tries++) {
		ret = bind(x->fd, (struct sockaddr *)&sxdp, sizeof(sxdp)) < 0 ? -errno : 0;
		if (ret != -EBUSY || tries == XSK_BIND_TRIES)
			break;
		usleep(XSK_BIND_WAIT_US);
	}
	if (ret < 0) {
		snprintf(err, errlen, "bind of an AF_XDP socket to queue %u in copy mode: %s%s",
			 queue, strerror(-ret),
			 ret == -EINVAL ? " (no such queue?)" :
			 ret == -EBUSY ? " (another socket is bound to that queue, for over 10 s)" : "");
		goto fail;
	}
	/*
	 * One sendto() takes 32 frames unless the socket raises its budget
	 * (XDP_MAX_TX_SKB_BUDGET, Linux 6.17+): ask for a whole batch.
	 */
	n = batch > XSK_KERNEL_BUDGET ? batch : XSK_KERNEL_BUDGET;
	if (n > XSK_KERNEL_BUDGET &&
	    setsockopt(x->fd, SOL_XDP, XDP_MAX_TX_SKB_BUDGET, &n, sizeof(n)) == 0)
		x->budget = n;
	else
		x->budget = XSK_KERNEL_BUDGET;
	x->prod = __atomic_load_n(x->tx.producer, __ATOMIC_RELAXED);
	x->cq_cons = __atomic_load_n(x->cq.consumer, __ATOMIC_RELAXED);
	return 0;
ring_fail:
	ret = -errno;
	snprintf(err, errlen, "cannot set up the AF_XDP socket's rings: %s", strerror(-ret));
fail:
	gen_xsk_close(x);
	return ret;
}

void
gen_xsk_close(struct gen_xsk *x)
{
	if (x->fd >= 0)
		close(x->fd);
	x->fd = -1;
	unmap_ring(&x->tx);
	unmap_ring(&x->cq);
	unmap_ring(&x->fq);
	if (x->umem)
		munmap(x->umem, x->umem_len);
	x->umem = NULL;
	free(x->free_addrs);
	x->free_addrs = NULL;
}

/* Completed frames give their slots back, and count as built (taken or dropped). */
static void
reap(struct gen_xsk *x)
{
	uint32_t prod = __atomic_load_n(x->cq.producer, __ATOMIC_ACQUIRE);
	const uint64_t *addrs = x->cq.desc;
	uint32_t n = prod - x->cq_cons;

	if (!n)
		return;
	while (x->cq_cons != prod)
		x->free_addrs[x->nfree++] = addrs[x->cq_cons++ & x->cq.mask];
	__atomic_store_n(x->cq.consumer, x->cq_cons, __ATOMIC_RELEASE);
	x->completed += n;
	atomic_store_explicit(&x->built, x->completed, memory_order_relaxed);
}

void
gen_xsk_reap(struct gen_xsk *x)
{
	reap(x);
}

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t
gen_xsk_taken(const struct gen_xsk *x)
{
	return atomic_load_explicit(&x->built, memory_order_relaxed) -
	       atomic_load_explicit(&x->dropped, memory_order_relaxed);
}

/* Frames taken since (completed, dropped) were c0, d0; never below 0. */
static uint64_t
taken_since(const struct gen_xsk *x, uint64_t dropped, uint64_t c0, uint64_t d0)
{
	uint64_t c = x->completed - c0, d = dropped - d0;

	return c > d ? c - d : 0;
}

int
gen_xsk_send(struct gen_xsk *x, uint64_t n, const atomic_int *stop, uint64_t *sent)
{
	struct xdp_desc *ring = x->tx.desc;
	uint64_t dropped = atomic_load_explicit(&x->dropped, memory_order_relaxed);
	uint64_t c0, d0 = dropped, done = 0, last_done = 0, last_progress = 0;
	unsigned int idle = 0;

	reap(x);
	c0 = x->completed;
	for (;;) {
		uint64_t pending, want;
		uint32_t k, cons;

		reap(x);
		done = taken_since(x, dropped, c0, d0);
		if (done >= n || atomic_load_explicit(stop, memory_order_relaxed))
			break;
		/* Every frame dropped or given back for too long: a peer down, no carrier. */
		if (done != last_done) {
			last_done = done;
			idle = 0;
		} else if (++idle % 1024 == 0) {
			if (idle == 1024)
				last_progress = mono_ns();
			else if (mono_ns() - last_progress > GEN_STALL_NS) {
				*sent = done;
				return -ENOLINK;
			}
		}
		/*
		 * Not completed yet: in the ring, given back by a busy device,
		 * or in flight.  At most n frames are taken in the end: those,
		 * and the ones still needed.
		 */
		pending = x->produced - x->completed;
		want = n - done > pending ? n - done - pending : 0;
		cons = __atomic_load_n(x->tx.consumer, __ATOMIC_ACQUIRE);
		k = x->batch;
		if (want < k)
			k = (uint32_t)want;
		if (x->nfree < k)
			k = x->nfree;
		if (XSK_TX_RING - (x->prod - cons) < k)
			k = XSK_TX_RING - (x->prod - cons);
		for (uint32_t i = 0; i < k; i++) {
			struct xdp_desc *d = &ring[(x->prod + i) & x->tx.mask];
			uint64_t addr = x->free_addrs[--x->nfree];

			gen_frame_stamp(x->umem + addr, x->cfg, x->seq++, x->flow);
			if (++x->flow == x->cfg->flows)
				x->flow = 0;
			d->addr = addr;
			d->len = x->size;
			d->options = 0;
		}
		if (k) {
			x->prod += k;
			x->produced += k;
			__atomic_store_n(x->tx.producer, x->prod, __ATOMIC_RELEASE);
		}
		if (x->prod == cons && !k) {
			/* The kernel took all: what is left is completions to come. */
			x->waits++;
			sched_yield();
			continue;
		}
		x->kicks++;
		if (sendto(x->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0) {
			switch (errno) {
			case EBUSY:
				/* The driver dropped one frame (a full peer ring): it counts as sent by no one. */
				dropped++;
				atomic_store_explicit(&x->dropped, dropped, memory_order_relaxed);
				break;
			case EAGAIN:
			case ENOBUFS:
			case EINTR:
				/* Budget spent, device busy, or no skb memory: kick again. */
				x->again++;
				/* No frame left at all: let the peer drain or the skbs be freed. */
				if (__atomic_load_n(x->tx.consumer, __ATOMIC_ACQUIRE) == cons)
					sched_yield();
				break;
			default: {
				int err = errno;

				reap(x);
				*sent = taken_since(x, dropped, c0, d0);
				return -err;
			}
			}
		}
	}
	*sent = done;
	return 0;
}
