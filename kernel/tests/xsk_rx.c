// SPDX-License-Identifier: BSD-3-Clause
/*
 * xsk_rx --ifname IF --prog map|xsk --mode drv|skb --count N --run-id ID
 *        [--scenario single|shared|restore] [--other-ifname IF2]
 *        [--timeout SEC] [--ready FILE] [--require]
 *
 * A small AF_XDP receiver (copy mode, queue 0) that must receive exactly N
 * test frames of run ID (sent by pkt_inject from the peer), each once, on
 * the socket the scenario designates, and nothing on the others:
 *
 *   single   one socket. With --prog xsk the socket is NOT in the XSKMAP,
 *            so frames can only reach it through XDP_REDIRECT_XSK; with
 *            --prog map it is, and bpf_redirect_map() delivers.
 *   shared   two sockets on the queue (XDP_SHARED_UMEM): bpf_redirect_xsk()
 *            must fall back to the map, which holds the first one.
 *   restore  two sockets on the queue and, created last, a third on
 *            --other-ifname; the first closes before traffic. The queue's
 *            direct socket must be the second (the one left on THAT queue),
 *            and the map is empty: only the direct path can deliver.
 *
 * The program is attached in native (drv) or generic (skb) mode and only
 * redirects test frames; other frames go to the stack. --ready FILE is
 * created once frames can be sent. Exit 0 when the counts are exact, 1 when
 * not, 77 when --prog xsk runs on a kernel without the feature (1 with
 * --require).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>

#include "xsk_test.h"

#define UMEM_FRAMES	2048
#define FRAME_SIZE	2048
#define RX_RING		1024
#define FILL_RING	2048
#define MAX_SOCKS	3
/* After the last expected frame, how long to keep looking for extra ones */
#define LINGER_NS	300000000ull

struct sock_state {
	const char *name;
	struct xdt_xsk xsk;
	bool open;
	uint64_t ours, foreign, dups;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(const char *argv0)
{
	MSG("usage: %s --ifname IF --prog map|xsk --mode drv|skb --count N --run-id ID\n"
	    "       [--scenario single|shared|restore] [--other-ifname IF2] [--timeout SEC]\n"
	    "       [--ready FILE] [--require]\n", argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "ifname", required_argument, NULL, 'i' },
		{ "other-ifname", required_argument, NULL, 'o' },
		{ "prog", required_argument, NULL, 'p' },
		{ "mode", required_argument, NULL, 'm' },
		{ "count", required_argument, NULL, 'n' },
		{ "run-id", required_argument, NULL, 'r' },
		{ "scenario", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ "ready", required_argument, NULL, 'R' },
		{ "require", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	const char *ifname = NULL, *other_ifname = NULL, *prog_name = NULL;
	const char *mode = "drv", *scenario = "single", *ready = NULL, *why;
	unsigned long count = 0, run_id = 0, timeout_s = 60;
	struct sock_state socks[MAX_SOCKS] = {
		{ .name = "first" }, { .name = "second" }, { .name = "other" },
	};
	struct xdt_umem umem = { 0 }, other_umem = { 0 };
	struct xdt_ring *fill;
	struct xdt_feature feature = { 0 };
	struct xdp_desc descs[64];
	uint8_t *seen = NULL;
	bool require = false, ok;
	int opt, err, ifindex, other_ifindex = -1, map = -1, prog = -1, i;
	int expected, attach_flags, rc = EXIT_FAILURE;
	enum xdt_prog_kind kind;
	uint64_t deadline, done_at = 0, unique = 0;
	uint32_t zero = 0;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'o': other_ifname = optarg; break;
		case 'p': prog_name = optarg; break;
		case 'm': mode = optarg; break;
		case 'n': count = strtoul(optarg, NULL, 0); break;
		case 'r': run_id = strtoul(optarg, NULL, 0); break;
		case 's': scenario = optarg; break;
		case 't': timeout_s = strtoul(optarg, NULL, 0); break;
		case 'R': ready = optarg; break;
		case 'q': require = true; break;
		default: usage(argv[0]);
		}
	}
	if (!ifname || !prog_name || !count || !run_id)
		usage(argv[0]);
	if (!strcmp(prog_name, "map"))
		kind = XDT_PROG_MAP;
	else if (!strcmp(prog_name, "xsk"))
		kind = XDT_PROG_XSK;
	else
		usage(argv[0]);
	if (!strcmp(mode, "drv"))
		attach_flags = XDP_FLAGS_DRV_MODE;
	else if (!strcmp(mode, "skb"))
		attach_flags = XDP_FLAGS_SKB_MODE;
	else
		usage(argv[0]);
	if (strcmp(scenario, "single") && strcmp(scenario, "shared") &&
	    strcmp(scenario, "restore"))
		usage(argv[0]);
	if (!strcmp(scenario, "restore") && (kind != XDT_PROG_XSK || !other_ifname)) {
		MSG("the restore scenario needs --prog xsk and --other-ifname\n");
		return 2;
	}

	if (kind == XDT_PROG_XSK) {
		err = xdt_feature_probe(&feature, &why);
		if (err) {
			printf("feature absent: %s\n", why);
			return require ? EXIT_FAILURE : EXIT_SKIP;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	ifindex = xdt_ifindex(ifname);
	if (other_ifname)
		other_ifindex = xdt_ifindex(other_ifname);
	if (ifindex < 0 || (other_ifname && other_ifindex < 0)) {
		MSG("no such device: %s\n", ifindex < 0 ? ifname : other_ifname);
		return EXIT_FAILURE;
	}
	seen = calloc(count, 1);
	map = xdt_xskmap_create(1);
	if (!seen || map < 0 || xdt_umem_alloc(&umem, UMEM_FRAMES, FRAME_SIZE)) {
		MSG("set-up failed: %s\n", strerror(errno));
		goto out;
	}

	/* The first socket owns the UMEM and its fill ring. */
	err = xdt_xsk_open(&socks[0].xsk, &umem, RX_RING, FILL_RING);
	if (!err)
		err = xdt_xsk_bind(&socks[0].xsk, ifindex, 0, -1);
	if (err) {
		MSG("first socket on %s queue 0: %s\n", ifname, strerror(-err));
		goto out;
	}
	socks[0].open = true;
	expected = 0;
	fill = &socks[0].xsk.fill;

	if (strcmp(scenario, "single")) {
		err = xdt_xsk_open(&socks[1].xsk, NULL, RX_RING, 0);
		if (!err)
			err = xdt_xsk_bind(&socks[1].xsk, ifindex, 0, socks[0].xsk.fd);
		if (err) {
			MSG("second socket (shared UMEM): %s\n", strerror(-err));
			goto out;
		}
		socks[1].open = true;
	}
	if (!strcmp(scenario, "restore")) {
		/* Created last: the head of the namespace's socket list. */
		if (xdt_umem_alloc(&other_umem, 64, FRAME_SIZE) ||
		    xdt_xsk_open(&socks[2].xsk, &other_umem, 64, 64) ||
		    xdt_xsk_bind(&socks[2].xsk, other_ifindex, 0, -1)) {
			MSG("socket on %s: %s\n", other_ifname, strerror(errno));
			goto out;
		}
		socks[2].open = true;
		/* The first one leaves: the second is alone on the queue. The
		 * fill ring belongs to the shared buffer pool; the second
		 * socket maps it too, so that the first one can really go
		 * (a mapping would keep its file, hence the socket, alive).
		 */
		err = xdt_xsk_map_fill(&socks[1].xsk, FILL_RING);
		if (err) {
			MSG("mapping the fill ring through the second socket: %s\n",
			    strerror(-err));
			goto out;
		}
		fill = &socks[1].xsk.fill;
		xdt_xsk_close(&socks[0].xsk);
		socks[0].open = false;
		expected = 1;
	}

	/* Which sockets the map holds decides what only the direct path can do. */
	if ((kind == XDT_PROG_MAP || !strcmp(scenario, "shared")) &&
	    bpf_map_update_elem(map, &zero, &socks[0].xsk.fd, BPF_ANY)) {
		MSG("XSKMAP update: %s\n", strerror(errno));
		goto out;
	}

	if (xdt_fill(fill, &umem, 0, UMEM_FRAMES) != UMEM_FRAMES) {
		MSG("cannot fill the fill ring\n");
		goto out;
	}

	prog = xdt_prog_redirect(kind, map, XDP_PASS, &feature, true, BPF_XDP, false);
	if (prog < 0)
		goto out;
	err = bpf_xdp_attach(ifindex, prog, attach_flags, NULL);
	if (err) {
		MSG("attaching the program to %s in %s mode: %s\n", ifname, mode, strerror(-err));
		goto out;
	}
	printf("# %s: %s program, %s mode, scenario %s; expecting %lu frames on the %s socket\n",
	       ifname, prog_name, mode, scenario, count, socks[expected].name);
	fflush(stdout);
	if (ready) {
		int fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0)
			close(fd);
	}

	deadline = xdt_now_ns() + timeout_s * 1000000000ull;
	while (!stop) {
		uint64_t now = xdt_now_ns();
		uint32_t got_any = 0;

		if (now > deadline || (done_at && now > done_at + LINGER_NS))
			break;
		for (i = 0; i < MAX_SOCKS; i++) {
			struct sock_state *s = &socks[i];
			uint64_t addrs[64];
			uint32_t n, k, seq;

			if (!s->open || !s->xsk.rx.map)
				continue;
			n = xdt_rx_take(&s->xsk.rx, descs, 64);
			for (k = 0; k < n; k++) {
				const struct xdt_umem *u = i == 2 ? &other_umem : &umem;
				const uint8_t *data = (uint8_t *)u->area + descs[k].addr;

				if (!xdt_frame_parse(data, descs[k].len, run_id, &seq) ||
				    seq >= count) {
					s->foreign++;
				} else if (seen[seq]) {
					s->dups++;
				} else {
					seen[seq] = 1;
					s->ours++;
					unique++;
				}
				/* Back to the fill ring; the address keeps its offset. */
				addrs[k] = descs[k].addr - descs[k].addr % FRAME_SIZE;
			}
			if (n && xdt_fill_addrs(i == 2 ? &socks[2].xsk.fill : fill,
						addrs, n) != n)
				MSG("fill ring overflow\n");
			got_any += n;
		}
		if (!done_at && unique >= count)
			done_at = xdt_now_ns();
		if (!got_any)
			usleep(200);
	}

	bpf_xdp_detach(ifindex, attach_flags, NULL);

	ok = true;
	for (i = 0; i < MAX_SOCKS; i++) {
		struct sock_state *s = &socks[i];
		struct xdp_statistics st = { 0 };
		uint64_t want = i == expected ? count : 0;

		if (!s->open && !s->ours)
			continue;
		if (s->open)
			xdt_xsk_stats(&s->xsk, &st);
		printf("# %s socket: %lu test frames (want %lu), %lu duplicates, %lu other frames;"
		       " kernel: rx_dropped %llu, rx_ring_full %llu, fill_ring_empty %llu\n",
		       s->name, (unsigned long)s->ours, (unsigned long)want,
		       (unsigned long)s->dups, (unsigned long)s->foreign,
		       st.rx_dropped, st.rx_ring_full, st.rx_fill_ring_empty_descs);
		if (s->ours != want || s->dups)
			ok = false;
	}
	printf("%s - %s program, %s mode, scenario %s: %lu/%lu frames\n",
	       ok ? "ok" : "not ok", prog_name, mode, scenario,
	       (unsigned long)unique, count);
	rc = ok ? EXIT_SUCCESS : EXIT_FAILURE;
out:
	if (prog >= 0)
		close(prog);
	for (i = 0; i < MAX_SOCKS; i++)
		if (socks[i].open)
			xdt_xsk_close(&socks[i].xsk);
	if (map >= 0)
		close(map);
	xdt_umem_free(&umem);
	xdt_umem_free(&other_umem);
	free(seen);
	return rc;
}
