// SPDX-License-Identifier: BSD-3-Clause
/*
 * xsk_rx --ifname IF --prog map|xsk --mode drv|skb|zc --count N --run-id ID
 *        [--scenario single|shared|restore|absent|alternate|switch|churn|
 *                    multiqueue|refused|foreign]
 *        [--other-ifname IF2] [--timeout SEC] [--ready FILE] [--sent FILE]
 *        [--require]
 *
 * A small AF_XDP receiver (queue 0) that must receive exactly the
 * test frames of run ID (0 .. N-1, sent by pkt_inject from the peer) that
 * the scenario gives each socket, each once and in order, and nothing else:
 *
 *   single     one socket, in the XSKMAP: it gets all N. (With --prog xsk
 *              they take the direct path, which the caller checks with
 *              veth's xdp_redirect_xsk counter in drv mode.)
 *   shared     two sockets on the queue (XDP_SHARED_UMEM), the first in the
 *              map: bpf_redirect_xsk() must fall back to the map.
 *   restore    two sockets on the queue and, created last, a third on
 *              --other-ifname; the first closes before traffic, the second
 *              is in the map. The queue's direct socket must be the second
 *              (the one left on THAT queue).
 *   absent     one socket, NOT in the map: it gets nothing, on both paths
 *              (bpf_redirect_xsk() keeps the map's semantics).
 *   alternate  two sockets on the queue, at keys 0 and 1, and a program
 *              keyed by the frame's number (--prog map): the first gets the
 *              even frames, the second the odd ones.
 *   switch     the same with the key changing from 0 to 1 at frame N/2 + 3,
 *              inside a NAPI poll when frames come in bursts of 64.
 *   churn      while frames arrive, the socket is closed and a new one bound
 *              (same UMEM, same mode) again and again until the sender is
 *              done, at least CHURN_MIN times: every bind must succeed (a
 *              zero-copy pool leaves its queue after a grace period: EBUSY
 *              until then is retried), each socket get its frames in order,
 *              no frame twice, and some frames must arrive. No exact count:
 *              frames arriving between two sockets are dropped.
 *   multiqueue the first socket on queue 0 (in --mode), a third, with a UMEM
 *              of its own, in copy mode on queue 1 of the same device, each
 *              at its queue's key: frames 0 .. N/2-1 must reach the first,
 *              the others the third (the sender steers them to the queues).
 *   refused    one socket, in the map, and a program that redirects every
 *              frame to --other-ifname with bpf_redirect(), a device that
 *              refuses them (lo: no ndo_xdp_xmit): the socket gets nothing.
 *              In zc mode each redirect copies the frame out of its pool
 *              buffer first; the caller checks that the refused copies are
 *              freed (the guest's free memory) and the frames counted in
 *              the device's rx_dropped.
 *   foreign    the first socket at key 0, and at key 1 a socket on
 *              --other-ifname (copy mode, a UMEM of its own), which refuses
 *              frames of this device; the program keyed by the frame's
 *              number, as in alternate: the even frames reach the first
 *              socket, the odd ones nothing. Each refused frame's buffer
 *              must go back to the first socket's pool (in zc mode): with
 *              more odd frames than UMEM frames, a lost buffer shows as
 *              even frames missing.
 *
 * The program is attached in native (drv) or generic (skb) mode, the sockets
 * bound in copy mode; zc is native mode with the sockets bound in zero-copy
 * mode (XDP_ZEROCOPY, checked with XDP_OPTIONS). The program only
 * redirects test frames; other frames go to the stack. --ready FILE is
 * created once frames can be sent; with --sent FILE, the receiver counts
 * until that file exists (the sender is done) and a little longer, so that
 * frames that should not come (absent) or come too many are seen. Exit 0 when the counts and the order are
 * right, 1 when not, 77 when --prog xsk runs on a kernel without the feature
 * (1 with --require).
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
	uint64_t ours, foreign, dups, misplaced, out_of_order;
	int64_t last_seq;
};

enum scenario {
	SC_SINGLE, SC_SHARED, SC_RESTORE, SC_ABSENT, SC_ALTERNATE, SC_SWITCH, SC_CHURN,
	SC_MULTIQUEUE, SC_REFUSED, SC_FOREIGN,
};

static const char *const scenario_names[] = {
	[SC_SINGLE] = "single", [SC_SHARED] = "shared", [SC_RESTORE] = "restore",
	[SC_ABSENT] = "absent", [SC_ALTERNATE] = "alternate", [SC_SWITCH] = "switch",
	[SC_CHURN] = "churn", [SC_MULTIQUEUE] = "multiqueue", [SC_REFUSED] = "refused",
	[SC_FOREIGN] = "foreign",
};

/* churn: the fewest sockets bound one after the other */
#define CHURN_MIN	50
/* churn: how long each socket receives before it is closed */
#define CHURN_LIFE_NS	20000000ull
/* churn: how long a bind may find the queue busy with the pool before */
#define CHURN_BUSY_NS	5000000000ull

/* The socket (index into socks[]) frame @seq must reach, or -1 for none */
static int expected_socket(enum scenario sc, uint32_t seq, uint32_t switch_at)
{
	switch (sc) {
	case SC_RESTORE:
		return 1;
	case SC_ABSENT:
	case SC_REFUSED:
		return -1;
	case SC_ALTERNATE:
		return seq & 1;
	case SC_SWITCH:
		return seq >= switch_at;
	case SC_MULTIQUEUE:
		return seq >= switch_at ? 2 : 0;
	case SC_FOREIGN:
		return seq & 1 ? -1 : 0;
	default:
		return 0;
	}
}

static int parse_scenario(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(scenario_names) / sizeof(scenario_names[0]); i++)
		if (!strcmp(name, scenario_names[i]))
			return (int)i;
	return -1;
}

static volatile sig_atomic_t stop;

/* Bind @s anew to queue 0 of @ifindex on @umem, at @map's key 0, its fill
 * ring full. While the queue still has the pool of the socket closed before
 * (it leaves after an RCU grace period), a zero-copy bind fails with EBUSY:
 * that is retried. Return: 0 or -errno.
 */
static int rebind(struct sock_state *s, const struct xdt_umem *umem, int ifindex,
		  uint16_t bind_mode, int map, uint64_t *busy)
{
	uint64_t since = xdt_now_ns();
	uint32_t zero = 0;
	int err;

	for (;;) {
		err = xdt_xsk_open(&s->xsk, umem, RX_RING, FILL_RING);
		if (!err)
			err = xdt_xsk_bind_mode(&s->xsk, ifindex, 0, -1, bind_mode);
		if (err != -EBUSY || xdt_now_ns() - since > CHURN_BUSY_NS)
			break;
		xdt_xsk_close(&s->xsk);
		(*busy)++;
		usleep(1000);
	}
	if (!err && xdt_xsk_zero_copy(&s->xsk) != (bind_mode == XDP_ZEROCOPY))
		err = -EPROTO;
	if (!err && bpf_map_update_elem(map, &zero, &s->xsk.fd, BPF_ANY))
		err = -errno;
	if (!err && xdt_fill(&s->xsk.fill, umem, 0, UMEM_FRAMES) != UMEM_FRAMES)
		err = -ENOSPC;
	if (err)
		xdt_xsk_close(&s->xsk);
	s->open = !err;
	s->last_seq = -1;
	return err;
}

/*
 * Count a frame @s received at @data: another run's or out of range
 * (foreign), a test frame seen before (dups), or ours, checked to come in
 * order within the socket's life.  Returns true for ours, its number in @seq.
 */
static bool count_frame(struct sock_state *s, uint8_t *seen, const uint8_t *data, uint32_t len,
			unsigned long count, unsigned long run_id, uint32_t *seq)
{
	if (!xdt_frame_parse(data, len, run_id, seq) || *seq >= count) {
		s->foreign++;
		return false;
	}
	if (seen[*seq]) {
		s->dups++;
		return false;
	}
	seen[*seq] = 1;
	s->ours++;
	if ((int64_t)*seq <= s->last_seq)
		s->out_of_order++;
	s->last_seq = *seq;
	return true;
}

/* Take what @s received; the test frames' numbers are marked in @seen. */
static uint32_t churn_take(struct sock_state *s, const struct xdt_umem *umem,
			   uint8_t *seen, unsigned long count, unsigned long run_id)
{
	struct xdp_desc descs[64];
	uint64_t addrs[64];
	uint32_t n, k, seq;

	n = xdt_rx_take(&s->xsk.rx, descs, 64);
	for (k = 0; k < n; k++) {
		const uint8_t *data = (uint8_t *)umem->area + descs[k].addr;

		count_frame(s, seen, data, descs[k].len, count, run_id, &seq);
		addrs[k] = descs[k].addr - descs[k].addr % FRAME_SIZE;
	}
	if (n && xdt_fill_addrs(&s->xsk.fill, addrs, n) != n)
		MSG("fill ring overflow\n");
	return n;
}

/* The churn scenario, with the first socket bound and the program attached:
 * close it and bind a new one, again and again, while frames arrive.
 */
static bool churn(struct sock_state *s, const struct xdt_umem *umem, int ifindex,
		  uint16_t bind_mode, int map, uint8_t *seen, unsigned long count,
		  unsigned long run_id, const char *sent, uint64_t deadline)
{
	uint64_t binds = 1, busy = 0;
	int err = 0;

	while (!stop && xdt_now_ns() < deadline) {
		uint64_t until = xdt_now_ns() + CHURN_LIFE_NS;

		while (xdt_now_ns() < until)
			if (!churn_take(s, umem, seen, count, run_id))
				usleep(200);
		if (binds >= CHURN_MIN && (!sent || !access(sent, F_OK)))
			break;
		xdt_xsk_close(&s->xsk);
		err = rebind(s, umem, ifindex, bind_mode, map, &busy);
		if (err) {
			MSG("bind %lu: %s\n", (unsigned long)binds + 1, strerror(-err));
			break;
		}
		binds++;
	}
	printf("# churn: %lu sockets bound one after the other (%lu binds found the queue"
	       " busy, retried), %lu test frames, %lu twice, %lu out of order, %lu not test"
	       " frames\n", (unsigned long)binds, (unsigned long)busy,
	       (unsigned long)s->ours, (unsigned long)s->dups,
	       (unsigned long)s->out_of_order, (unsigned long)s->foreign);
	return !err && binds >= CHURN_MIN && s->ours && !s->dups && !s->out_of_order &&
	       !s->foreign;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(const char *argv0)
{
	MSG("usage: %s --ifname IF --prog map|xsk --mode drv|skb|zc --count N --run-id ID\n"
	    "       [--scenario single|shared|restore|absent|alternate|switch|churn|"
	    "multiqueue|refused|foreign]\n"
	    "       [--other-ifname IF2] [--timeout SEC] [--ready FILE] [--sent FILE]\n"
	    "       [--require]\n", argv0);
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
		{ "sent", required_argument, NULL, 'S' },
		{ "require", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	const char *ifname = NULL, *other_ifname = NULL, *prog_name = NULL;
	const char *mode = "drv", *scenario_name = "single", *ready = NULL, *sent = NULL, *why;
	unsigned long count = 0, run_id = 0, timeout_s = 60;
	struct sock_state socks[MAX_SOCKS] = {
		{ .name = "first", .last_seq = -1 }, { .name = "second", .last_seq = -1 },
		{ .name = "other", .last_seq = -1 },
	};
	struct xdt_umem umem = { 0 }, other_umem = { 0 };
	struct xdt_ring *fill;
	struct xdt_feature feature = { 0 };
	struct xdp_desc descs[64];
	uint8_t *seen = NULL;
	bool require = false, ok;
	int opt, err, ifindex, other_ifindex = -1, map = -1, prog = -1, i;
	int attach_flags, sc, rc = EXIT_FAILURE;
	uint16_t bind_mode = XDP_COPY;
	enum xdt_prog_kind kind;
	uint64_t deadline, done_at = 0, unique = 0, expected_total;
	uint64_t want[MAX_SOCKS] = { 0 };
	uint32_t zero = 0, one = 1, switch_at, frame;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'o': other_ifname = optarg; break;
		case 'p': prog_name = optarg; break;
		case 'm': mode = optarg; break;
		case 'n': count = strtoul(optarg, NULL, 0); break;
		case 'r': run_id = strtoul(optarg, NULL, 0); break;
		case 's': scenario_name = optarg; break;
		case 't': timeout_s = strtoul(optarg, NULL, 0); break;
		case 'R': ready = optarg; break;
		case 'S': sent = optarg; break;
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
	if (!strcmp(mode, "drv") || !strcmp(mode, "zc"))
		attach_flags = XDP_FLAGS_DRV_MODE;
	else if (!strcmp(mode, "skb"))
		attach_flags = XDP_FLAGS_SKB_MODE;
	else
		usage(argv[0]);
	if (!strcmp(mode, "zc"))
		bind_mode = XDP_ZEROCOPY;
	sc = parse_scenario(scenario_name);
	if (sc < 0)
		usage(argv[0]);
	if (sc == SC_RESTORE && (kind != XDT_PROG_XSK || !other_ifname)) {
		MSG("the restore scenario needs --prog xsk and --other-ifname\n");
		return 2;
	}
	if ((sc == SC_REFUSED || sc == SC_FOREIGN) && !other_ifname) {
		MSG("the %s scenario needs --other-ifname\n", scenario_name);
		return 2;
	}
	if ((sc == SC_ALTERNATE || sc == SC_SWITCH || sc == SC_FOREIGN) &&
	    kind != XDT_PROG_MAP) {
		MSG("the %s scenario needs --prog map (its program picks the key)\n",
		    scenario_name);
		return 2;
	}
	switch_at = sc == SC_MULTIQUEUE ? count / 2 : count / 2 + 3;
	for (frame = 0; frame < count; frame++) {
		int s = expected_socket(sc, frame, switch_at);

		if (s >= 0)
			want[s]++;
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
	map = xdt_xskmap_create(2);
	if (!seen || map < 0 || xdt_umem_alloc(&umem, UMEM_FRAMES, FRAME_SIZE)) {
		MSG("set-up failed: %s\n", strerror(errno));
		goto out;
	}

	/* The first socket owns the UMEM and its fill ring. */
	err = xdt_xsk_open(&socks[0].xsk, &umem, RX_RING, FILL_RING);
	if (!err)
		err = xdt_xsk_bind_mode(&socks[0].xsk, ifindex, 0, -1, bind_mode);
	if (err) {
		MSG("first socket on %s queue 0: %s\n", ifname, strerror(-err));
		goto out;
	}
	if (xdt_xsk_zero_copy(&socks[0].xsk) != (bind_mode == XDP_ZEROCOPY)) {
		MSG("first socket on %s queue 0: not in %s mode (XDP_OPTIONS)\n", ifname,
		    bind_mode == XDP_ZEROCOPY ? "zero-copy" : "copy");
		goto out;
	}
	socks[0].open = true;
	fill = &socks[0].xsk.fill;

	if (sc == SC_SHARED || sc == SC_RESTORE || sc == SC_ALTERNATE || sc == SC_SWITCH) {
		err = xdt_xsk_open(&socks[1].xsk, NULL, RX_RING, 0);
		if (!err)
			err = xdt_xsk_bind(&socks[1].xsk, ifindex, 0, socks[0].xsk.fd);
		if (err) {
			MSG("second socket (shared UMEM): %s\n", strerror(-err));
			goto out;
		}
		socks[1].open = true;
		/* It shares the first one's buffer pool, hence its mode */
		if (xdt_xsk_zero_copy(&socks[1].xsk) != (bind_mode == XDP_ZEROCOPY)) {
			MSG("second socket: not in %s mode (XDP_OPTIONS)\n",
			    bind_mode == XDP_ZEROCOPY ? "zero-copy" : "copy");
			goto out;
		}
	}
	if (sc == SC_RESTORE) {
		/* Created last: the head of the namespace's socket list. */
		if (xdt_umem_alloc(&other_umem, 64, FRAME_SIZE) ||
		    xdt_xsk_open(&socks[2].xsk, &other_umem, 64, 64) ||
		    xdt_xsk_bind_mode(&socks[2].xsk, other_ifindex, 0, -1, bind_mode)) {
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
	}

	if (sc == SC_FOREIGN) {
		/* In the map only: frames of @ifindex never reach it */
		if (xdt_umem_alloc(&other_umem, 64, FRAME_SIZE) ||
		    xdt_xsk_open(&socks[2].xsk, &other_umem, 64, 64) ||
		    xdt_xsk_bind_mode(&socks[2].xsk, other_ifindex, 0, -1, XDP_COPY) ||
		    bpf_map_update_elem(map, &one, &socks[2].xsk.fd, BPF_ANY)) {
			MSG("socket on %s: %s\n", other_ifname, strerror(errno));
			goto out;
		}
		socks[2].open = true;
	}

	if (sc == SC_MULTIQUEUE) {
		/* Copy mode beside the first socket's mode, on the next queue */
		if (xdt_umem_alloc(&other_umem, UMEM_FRAMES, FRAME_SIZE) ||
		    xdt_xsk_open(&socks[2].xsk, &other_umem, RX_RING, FILL_RING) ||
		    xdt_xsk_bind_mode(&socks[2].xsk, ifindex, 1, -1, XDP_COPY) ||
		    xdt_xsk_zero_copy(&socks[2].xsk) != 0 ||
		    bpf_map_update_elem(map, &one, &socks[2].xsk.fd, BPF_ANY) ||
		    xdt_fill(&socks[2].xsk.fill, &other_umem, 0, UMEM_FRAMES) != UMEM_FRAMES) {
			MSG("copy-mode socket on %s queue 1: %s\n", ifname, strerror(errno));
			goto out;
		}
		socks[2].open = true;
	}

	/* The map holds the socket that gets the frames (at key 1 the second
	 * one of alternate and switch); in absent, none.
	 */
	err = 0;
	if (sc == SC_RESTORE)
		err = bpf_map_update_elem(map, &zero, &socks[1].xsk.fd, BPF_ANY);
	else if (sc != SC_ABSENT)
		err = bpf_map_update_elem(map, &zero, &socks[0].xsk.fd, BPF_ANY);
	if (!err && (sc == SC_ALTERNATE || sc == SC_SWITCH))
		err = bpf_map_update_elem(map, &one, &socks[1].xsk.fd, BPF_ANY);
	if (err) {
		MSG("XSKMAP update: %s\n", strerror(errno));
		goto out;
	}

	if (xdt_fill(fill, &umem, 0, UMEM_FRAMES) != UMEM_FRAMES) {
		MSG("cannot fill the fill ring\n");
		goto out;
	}

	if (sc == SC_ALTERNATE || sc == SC_FOREIGN)
		prog = xdt_prog_redirect_by_seq(map, XDT_KEY_PARITY, 0);
	else if (sc == SC_SWITCH)
		prog = xdt_prog_redirect_by_seq(map, XDT_KEY_SWITCH, switch_at);
	else if (sc == SC_REFUSED)
		prog = xdt_prog_redirect_ifindex(other_ifindex);
	else
		prog = xdt_prog_redirect(kind, map, XDP_PASS, &feature, true, BPF_XDP, false);
	if (prog < 0)
		goto out;
	err = bpf_xdp_attach(ifindex, prog, attach_flags, NULL);
	if (err) {
		MSG("attaching the program to %s in %s mode: %s\n", ifname, mode, strerror(-err));
		goto out;
	}
	expected_total = want[0] + want[1] + want[2];
	printf("# %s: %s program, %s mode, scenario %s; expecting %lu, %lu and %lu frames on"
	       " the first, second and other socket\n", ifname, prog_name, mode, scenario_name,
	       (unsigned long)want[0], (unsigned long)want[1], (unsigned long)want[2]);
	fflush(stdout);
	if (ready) {
		int fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0)
			close(fd);
	}

	deadline = xdt_now_ns() + timeout_s * 1000000000ull;
	if (sc == SC_CHURN) {
		ok = churn(&socks[0], &umem, ifindex, bind_mode, map, seen, count, run_id,
			   sent, deadline);
		bpf_xdp_detach(ifindex, attach_flags, NULL);
		printf("%s - %s program, %s mode, scenario churn\n", ok ? "ok" : "not ok",
		       prog_name, mode);
		rc = ok ? EXIT_SUCCESS : EXIT_FAILURE;
		goto out;
	}
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

				if (count_frame(s, seen, data, descs[k].len, count, run_id, &seq)) {
					unique++;
					if (expected_socket(sc, seq, switch_at) != i)
						s->misplaced++;
				}
				/* Back to the fill ring; the address keeps its offset. */
				addrs[k] = descs[k].addr - descs[k].addr % FRAME_SIZE;
			}
			if (n && xdt_fill_addrs(i == 2 ? &socks[2].xsk.fill : fill,
						addrs, n) != n)
				MSG("fill ring overflow\n");
			got_any += n;
		}
		if (!done_at && unique >= expected_total && (!sent || !access(sent, F_OK)))
			done_at = xdt_now_ns();
		if (!got_any)
			usleep(200);
	}

	bpf_xdp_detach(ifindex, attach_flags, NULL);

	ok = true;
	for (i = 0; i < MAX_SOCKS; i++) {
		struct sock_state *s = &socks[i];
		struct xdp_statistics st = { 0 };

		if (!s->open && !s->ours)
			continue;
		if (s->open)
			xdt_xsk_stats(&s->xsk, &st);
		printf("# %s socket: %lu test frames (want %lu), %lu duplicates, %lu out of order,"
		       " %lu for another socket, %lu other frames; kernel: rx_dropped %llu,"
		       " rx_ring_full %llu, fill_ring_empty %llu\n",
		       s->name, (unsigned long)s->ours, (unsigned long)want[i],
		       (unsigned long)s->dups, (unsigned long)s->out_of_order,
		       (unsigned long)s->misplaced, (unsigned long)s->foreign,
		       st.rx_dropped, st.rx_ring_full, st.rx_fill_ring_empty_descs);
		if (s->ours != want[i] || s->dups || s->out_of_order || s->misplaced)
			ok = false;
	}
	printf("%s - %s program, %s mode, scenario %s: %lu/%lu frames\n",
	       ok ? "ok" : "not ok", prog_name, mode, scenario_name,
	       (unsigned long)unique, (unsigned long)expected_total);
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
