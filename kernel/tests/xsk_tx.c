// SPDX-License-Identifier: BSD-3-Clause
/*
 * xsk_tx --ifname IF --peer PEER --count N --run-id ID [--spin INSNS]
 *        [--timeout SEC] [--as-dpdk] [--in-flight N] [--replace-prog]
 *        [--len BYTES] [--peer-stack] [--copy] [--no-prog] [--kick-once]
 *
 * Zero-copy transmit into a slow peer: an AF_XDP socket bound to queue 0 of
 * veth IF in zero-copy mode (with need_wakeup) transmits test frames
 * 0 .. N-1 of run ID as fast as its Tx ring takes them, while PEER's XDP
 * program spends INSNS instructions on each frame (default 20000), counts
 * the test frames and drops them: PEER's 256-entry ring fills up. As on a
 * NIC, the Tx ring must hold back what the peer has no room for:
 *
 *   every descriptor comes back on the completion ring, exactly once;
 *   every frame reaches PEER's program (delivered), or is counted in IF's
 *   tx_dropped; none is lost silently (delivered + tx_dropped = N);
 *   and, backpressure, none is dropped (delivered = N).
 *
 * IF gets an XDP program too (XDP_PASS), unless --no-prog: a veth queue has
 * a NAPI poll only with one (or GRO). Exit 0 when all holds, 1 when not.
 *
 * --as-dpdk sets the socket up as DPDK's AF_XDP drivers (and libxdp) do:
 * bound before IF's program is attached, so before veth's NAPI exists, and
 * with preferred busy polling, which makes the kernel skip the Tx wakeup
 * whenever the socket has a NAPI id and run that NAPI's poll instead.
 * --in-flight N keeps at most N descriptors uncompleted, so that every few
 * frames need a wakeup (or a busy poll of the right NAPI) of their own.
 * --replace-prog detaches IF's program and attaches it again once half of
 * the frames have completed: veth then deletes the queue's NAPI and adds a
 * new one, with a new id, under the bound socket.
 * --len sends frames of BYTES (default 64, at most a 4096-byte chunk).
 * --peer-stack attaches no program to PEER: its NAPI (GRO on) hands the
 * frames to its stack, and delivered is what PEER's rx_packets counted.
 * --copy binds the socket in copy mode (XDP_COPY): the kernel's generic
 * transmit builds an skb per frame and hands it to veth_xmit(). veth
 * without a qdisc drops what PEER's full ring refuses (counted in IF's
 * tx_dropped), so there every descriptor must still come back exactly once
 * and every frame be delivered or counted (delivered + tx_dropped = N), but
 * delivered = N is not asked.
 * --no-prog attaches no program to IF (nor GRO): its queue has no NAPI
 * poll, and a zero-copy socket must transmit all the same, as one in copy
 * mode does (wakeups transmit).
 * --kick-once wakes the kernel once, after the first descriptors, and
 * never again, whatever the Tx ring's need_wakeup flag says, as an
 * application busy waiting on the completion ring does: the descriptors
 * held back while PEER's ring is full must go when PEER drains it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>

#include "xsk_test.h"

#define FRAMES		4096
#define FRAME_SIZE	4096
#define RING		2048
/* After the last completion, how long the peer may still be polling */
#define SETTLE_NS	2000000000ull
/* --as-dpdk: the busy polling DPDK's drivers set by default */
#define BUSY_POLL_USECS	20
#define BUSY_POLL_BUDGET 64

struct tx_ring {
	uint32_t *producer, *consumer, *flags;
	void *descs;
	void *map;
	size_t map_len;
};

static int ring_map(int fd, struct tx_ring *r, const struct xdp_ring_offset *off,
		    size_t desc_size, off_t pgoff)
{
	r->map_len = off->desc + RING * desc_size;
	r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		      fd, pgoff);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		return -errno;
	}
	r->producer = (uint32_t *)((char *)r->map + off->producer);
	r->consumer = (uint32_t *)((char *)r->map + off->consumer);
	r->flags = (uint32_t *)((char *)r->map + off->flags);
	r->descs = (char *)r->map + off->desc;
	return 0;
}

#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL 69
#endif
#ifndef SO_BUSY_POLL_BUDGET
#define SO_BUSY_POLL_BUDGET 70
#endif

static int set_busy_poll(int fd)
{
	int prefer = 1, usecs = BUSY_POLL_USECS, budget = BUSY_POLL_BUDGET;

	if (setsockopt(fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &prefer, sizeof(prefer)) ||
	    setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &usecs, sizeof(usecs)) ||
	    setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget, sizeof(budget)))
		return -errno;
	return 0;
}

static int set_ring(int fd, int opt)
{
	uint32_t size = RING;

	return setsockopt(fd, SOL_XDP, opt, &size, sizeof(size)) ? -errno : 0;
}

/* A Tx-only socket on queue 0 of @ifindex, zero-copy (copy mode with
 * @copy), its UMEM @area
 */
static int tx_socket(int ifindex, void *area, struct tx_ring *tx, struct tx_ring *cq,
		     bool copy)
{
	struct xdp_umem_reg reg = {
		.addr = (uintptr_t)area, .len = (uint64_t)FRAMES * FRAME_SIZE,
		.chunk_size = FRAME_SIZE,
	};
	struct sockaddr_xdp sxdp = {
		.sxdp_family = AF_XDP, .sxdp_ifindex = ifindex, .sxdp_queue_id = 0,
		.sxdp_flags = (copy ? XDP_COPY : XDP_ZEROCOPY) | XDP_USE_NEED_WAKEUP,
	};
	struct xdp_mmap_offsets off;
	socklen_t len = sizeof(off);
	int fd, err;

	fd = socket(AF_XDP, SOCK_RAW, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &reg, sizeof(reg)) ||
	    set_ring(fd, XDP_UMEM_FILL_RING) || set_ring(fd, XDP_UMEM_COMPLETION_RING) ||
	    set_ring(fd, XDP_TX_RING) ||
	    getsockopt(fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &len)) {
		err = -errno;
		goto fail;
	}
	err = ring_map(fd, tx, &off.tx, sizeof(struct xdp_desc), XDP_PGOFF_TX_RING);
	if (!err)
		err = ring_map(fd, cq, &off.cr, sizeof(uint64_t), XDP_UMEM_PGOFF_COMPLETION_RING);
	if (!err && bind(fd, (struct sockaddr *)&sxdp, sizeof(sxdp)))
		err = -errno;
	if (!err)
		return fd;
fail:
	close(fd);
	return err;
}

static long read_stat(const char *ifname, const char *stat)
{
	char path[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s", ifname, stat);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static uint64_t counted(int counter)
{
	uint32_t zero = 0;
	uint64_t v = 0;

	bpf_map_lookup_elem(counter, &zero, &v);
	return v;
}

static void usage(const char *argv0)
{
	MSG("usage: %s --ifname IF --peer PEER --count N --run-id ID [--spin INSNS]"
	    " [--timeout SEC] [--as-dpdk] [--in-flight N] [--replace-prog] [--len BYTES]"
	    " [--peer-stack] [--copy] [--no-prog] [--kick-once]\n", argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "ifname", required_argument, NULL, 'i' },
		{ "peer", required_argument, NULL, 'p' },
		{ "count", required_argument, NULL, 'n' },
		{ "run-id", required_argument, NULL, 'r' },
		{ "spin", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ "as-dpdk", no_argument, NULL, 'd' },
		{ "in-flight", required_argument, NULL, 'f' },
		{ "replace-prog", no_argument, NULL, 'R' },
		{ "len", required_argument, NULL, 'l' },
		{ "peer-stack", no_argument, NULL, 'S' },
		{ "copy", no_argument, NULL, 'c' },
		{ "no-prog", no_argument, NULL, 'P' },
		{ "kick-once", no_argument, NULL, 'K' },
		{ NULL, 0, NULL, 0 },
	};
	const char *ifname = NULL, *peer = NULL;
	unsigned long count = 0, run_id = 0, spin = 20000, timeout_s = 120;
	uint64_t sent = 0, completed = 0, delivered = 0, last_change, deadline, kicks = 0;
	struct tx_ring tx = { 0 }, cq = { 0 };
	int opt, err, ifindex, peer_index, fd = -1, counter = -1, prog = -1, peer_prog = -1;
	uint32_t free_frames[FRAMES], nfree = 0, i;
	long dropped_before, dropped;
	void *area = MAP_FAILED;
	bool ok, as_dpdk = false, replace_prog = false, peer_stack = false, copy = false;
	bool no_prog = false, kick_once = false;
	unsigned long in_flight = RING, frame_len = XDT_FRAME_LEN;
	long peer_rx_before = 0;
	int rc = EXIT_FAILURE;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'p': peer = optarg; break;
		case 'n': count = strtoul(optarg, NULL, 0); break;
		case 'r': run_id = strtoul(optarg, NULL, 0); break;
		case 's': spin = strtoul(optarg, NULL, 0); break;
		case 't': timeout_s = strtoul(optarg, NULL, 0); break;
		case 'd': as_dpdk = true; break;
		case 'f': in_flight = strtoul(optarg, NULL, 0); break;
		case 'R': replace_prog = true; break;
		case 'l': frame_len = strtoul(optarg, NULL, 0); break;
		case 'S': peer_stack = true; break;
		case 'c': copy = true; break;
		case 'P': no_prog = true; break;
		case 'K': kick_once = true; break;
		default: usage(argv[0]);
		}
	}
	if (!ifname || !peer || !count || !run_id || !in_flight || in_flight > RING ||
	    frame_len < XDT_FRAME_LEN || frame_len > FRAME_SIZE ||
	    (no_prog && (as_dpdk || replace_prog)))
		usage(argv[0]);
	ifindex = xdt_ifindex(ifname);
	peer_index = xdt_ifindex(peer);
	if (ifindex < 0 || peer_index < 0) {
		MSG("no such device: %s\n", ifindex < 0 ? ifname : peer);
		return EXIT_FAILURE;
	}

	counter = xdt_counter_create();
	peer_prog = xdt_prog_count_slow(counter, spin);
	/* Declared multi-buffer, as veth wants of a program on IF when PEER's
	 * MTU is larger than a page holds
	 */
	prog = xdt_prog_return_frags(XDP_PASS);
	if (counter < 0 || peer_prog < 0 || prog < 0) {
		MSG("set-up failed\n");
		goto out;
	}
	if ((!peer_stack && bpf_xdp_attach(peer_index, peer_prog, XDP_FLAGS_DRV_MODE, NULL)) ||
	    (!as_dpdk && !no_prog &&
	     bpf_xdp_attach(ifindex, prog, XDP_FLAGS_DRV_MODE, NULL))) {
		MSG("attaching the programs: %s\n", strerror(errno));
		goto out;
	}
	area = mmap(NULL, (size_t)FRAMES * FRAME_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (area == MAP_FAILED) {
		MSG("UMEM: %s\n", strerror(errno));
		goto out;
	}
	fd = tx_socket(ifindex, area, &tx, &cq, copy);
	if (fd < 0) {
		MSG("%s socket on %s queue 0: %s\n", copy ? "copy-mode" : "zero-copy", ifname,
		    strerror(-fd));
		goto out;
	}
	if (as_dpdk) {
		err = set_busy_poll(fd);
		if (err || bpf_xdp_attach(ifindex, prog, XDP_FLAGS_DRV_MODE, NULL)) {
			MSG("%s: %s\n", err ? "busy polling" : "attaching the program",
			    strerror(err ? -err : errno));
			goto out;
		}
	}
	for (i = 0; i < FRAMES; i++)
		free_frames[nfree++] = i;
	dropped_before = read_stat(ifname, "tx_dropped");
	peer_rx_before = read_stat(peer, "rx_packets");

	deadline = xdt_now_ns() + timeout_s * 1000000000ull;
	while (completed < count && xdt_now_ns() < deadline) {
		uint32_t prod = *tx.producer;
		uint32_t room = RING - (prod - __atomic_load_n(tx.consumer, __ATOMIC_ACQUIRE));
		uint32_t cprod = __atomic_load_n(cq.producer, __ATOMIC_ACQUIRE);
		uint32_t ccons = *cq.consumer, n;
		struct xdp_desc *descs = tx.descs;
		uint64_t *addrs = cq.descs;

		/* Completions: the frames are free again */
		for (n = ccons; n != cprod; n++)
			free_frames[nfree++] = addrs[n & (RING - 1)] / FRAME_SIZE;
		completed += cprod - ccons;
		__atomic_store_n(cq.consumer, cprod, __ATOMIC_RELEASE);

		if (replace_prog && completed >= count / 2) {
			replace_prog = false;
			if (bpf_xdp_detach(ifindex, XDP_FLAGS_DRV_MODE, NULL) ||
			    bpf_xdp_attach(ifindex, prog, XDP_FLAGS_DRV_MODE, NULL)) {
				MSG("replacing the program: %s\n", strerror(errno));
				break;
			}
		}
		if (room > in_flight - (sent - completed))
			room = in_flight - (sent - completed);
		for (n = 0; n < room && nfree && sent < count; n++, sent++) {
			uint32_t frame = free_frames[--nfree];

			xdt_frame_build((uint8_t *)area + (size_t)frame * FRAME_SIZE, run_id,
					sent);
			descs[(prod + n) & (RING - 1)] = (struct xdp_desc){
				.addr = (uint64_t)frame * FRAME_SIZE, .len = frame_len,
			};
		}
		__atomic_store_n(tx.producer, prod + n, __ATOMIC_RELEASE);
		if ((kick_once ? n && !kicks :
		     __atomic_load_n(tx.flags, __ATOMIC_ACQUIRE) & XDP_RING_NEED_WAKEUP)) {
			kicks++;
			if (sendto(fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 &&
			    errno != EAGAIN && errno != EBUSY && errno != ENOBUFS) {
				MSG("sendto: %s\n", strerror(errno));
				break;
			}
		}
		if (!n && cprod == ccons)
			usleep(100);
	}

	/* The last frames may still wait in the peer's ring */
	last_change = xdt_now_ns();
	while (xdt_now_ns() < last_change + SETTLE_NS) {
		uint64_t now = peer_stack ? (uint64_t)(read_stat(peer, "rx_packets") -
						       peer_rx_before) : counted(counter);

		if (now != delivered) {
			delivered = now;
			last_change = xdt_now_ns();
		}
		if (delivered == count)
			break;
		usleep(10000);
	}
	dropped = read_stat(ifname, "tx_dropped") - dropped_before;

	ok = completed == count && delivered + dropped == count && (copy || delivered == count);
	printf("# %lu sent, %lu completed, %lu delivered to %s, %ld in %s's tx_dropped"
	       " (%lu wakeups)\n", (unsigned long)sent, (unsigned long)completed,
	       (unsigned long)delivered, peer, dropped, ifname, (unsigned long)kicks);
	if (completed < count)
		printf("# %lu of %lu descriptors never completed (%lu never placed in the"
		       " Tx ring) within %lu s\n", (unsigned long)(count - completed), count,
		       (unsigned long)(count - sent), timeout_s);
	else if (delivered + dropped != count)
		printf("# %ld frames lost without being counted\n",
		       (long)count - (long)delivered - dropped);
	printf("%s - %s Tx from %s to %s's %s: %lu/%lu delivered\n", ok ? "ok" : "not ok",
	       copy ? "copy-mode" : "zero-copy", ifname, peer, peer_stack ? "stack" : "program",
	       (unsigned long)delivered, count);
	rc = ok ? EXIT_SUCCESS : EXIT_FAILURE;
out:
	bpf_xdp_detach(ifindex, XDP_FLAGS_DRV_MODE, NULL);
	bpf_xdp_detach(peer_index, XDP_FLAGS_DRV_MODE, NULL);
	if (tx.map)
		munmap(tx.map, tx.map_len);
	if (cq.map)
		munmap(cq.map, cq.map_len);
	if (fd >= 0)
		close(fd);
	if (area != MAP_FAILED)
		munmap(area, (size_t)FRAMES * FRAME_SIZE);
	if (prog >= 0)
		close(prog);
	if (peer_prog >= 0)
		close(peer_prog);
	if (counter >= 0)
		close(counter);
	return rc;
}
