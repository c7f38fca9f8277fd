/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * The fallback where live frames are unavailable: an AF_PACKET socket,
 * sendmmsg() of GEN_PACKET_BATCH frames per call, PACKET_QDISC_BYPASS so
 * that frames go straight to the driver.  Every frame costs an skb and a
 * copy, hence far slower.  The frames are stamped here as the XDP program
 * would stamp them (gen_frame_stamp).
 *
 * Counts are exact: with the qdisc bypassed, a frame the driver refuses
 * (a veth whose peer ring is full) makes that sendmmsg() entry fail with
 * ENOBUFS, and it is sent again.
 */

#define _GNU_SOURCE	/* sendmmsg */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/if_packet.h>
#include <sys/socket.h>
#include <time.h>

#include "gen.h"

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int
gen_packet_open(struct gen_packet *p, int ifindex, const uint8_t *frame, unsigned int size,
		const struct gen_cfg *cfg, char *err, size_t errlen)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_ifindex = ifindex,
	};
	int one = 1, ret;

	memset(p, 0, sizeof(*p));
	p->fd = -1;
	p->size = size;
	p->cfg = cfg;
	p->frames = malloc((size_t)GEN_PACKET_BATCH * size);
	if (!p->frames) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < GEN_PACKET_BATCH; i++)
		memcpy(p->frames + (size_t)i * size, frame, size);

	/* Protocol 0: this socket receives nothing. */
	p->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (p->fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot open an AF_PACKET socket: %s%s", strerror(-ret),
			 ret == -EPERM ? " (needs root or CAP_NET_RAW)" : "");
		goto fail;
	}
	if (bind(p->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot bind the AF_PACKET socket: %s", strerror(-ret));
		goto fail;
	}
	if (setsockopt(p->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)) < 0) {
		ret = -errno;
		snprintf(err, errlen, "PACKET_QDISC_BYPASS: %s", strerror(-ret));
		goto fail;
	}
	return 0;
fail:
	gen_packet_close(p);
	return ret;
}

void
gen_packet_close(struct gen_packet *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	free(p->frames);
	p->frames = NULL;
}

int
gen_packet_send(struct gen_packet *p, uint64_t n, const atomic_int *stop, uint64_t *sent)
{
	struct mmsghdr msgs[GEN_PACKET_BATCH];
	struct iovec iov[GEN_PACKET_BATCH];
	uint64_t refused_since = 0;	/* every call refused since then */

	memset(msgs, 0, sizeof(msgs));
	for (unsigned int i = 0; i < GEN_PACKET_BATCH; i++) {
		iov[i].iov_base = p->frames + (size_t)i * p->size;
		iov[i].iov_len = p->size;
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}

	*sent = 0;
	while (*sent < n && !atomic_load_explicit(stop, memory_order_relaxed)) {
		unsigned int k = n - *sent < GEN_PACKET_BATCH ? (unsigned int)(n - *sent) : GEN_PACKET_BATCH;
		uint32_t flow = p->flow;
		int r;

		/* Frames refused last time are stamped again with the same numbers. */
		for (unsigned int i = 0; i < k; i++) {
			gen_frame_stamp(p->frames + (size_t)i * p->size, p->cfg, p->seq + i, flow);
			if (++flow == p->cfg->flows)
				flow = 0;
		}
		r = sendmmsg(p->fd, msgs, k, 0);
		if (r < 0) {
			if (errno == ENOBUFS || errno == EAGAIN || errno == EINTR) {
				/* A full queue drains; a peer down never does. */
				if (!refused_since)
					refused_since = mono_ns();
				else if (mono_ns() - refused_since > GEN_STALL_NS)
					return -ENOLINK;
				p->retries++;
				sched_yield();
				continue;
			}
			return -errno;
		}
		refused_since = 0;
		*sent += (unsigned int)r;
		p->seq += (unsigned int)r;
		p->flow = (uint32_t)((p->flow + (unsigned int)r) % p->cfg->flows);
	}
	return 0;
}
