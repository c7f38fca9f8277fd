// SPDX-License-Identifier: BSD-3-Clause
/*
 * xsk_direct_check [--ifname IF] [--require]
 *
 * The kernel side of XDP_REDIRECT_XSK, checked with BPF_PROG_RUN and real
 * AF_XDP sockets: what bpf_redirect_xsk() answers as sockets come and go on
 * a receive queue and in the XSKMAP (XDP_REDIRECT_XSK only for the queue's
 * single socket when the map holds it at the key: the map's semantics),
 * what the verifier accepts, and that an unsupported XDP_REDIRECT_XSK ends
 * in a drop.
 *
 * The helper's number and the action's value are read from the running
 * kernel's BTF. Without them the feature is absent: the program says so and
 * exits 77 (skip), or 1 with --require (inside the test VM, where the
 * patched kernel runs).
 *
 * Without --ifname it works on the loopback device of a network namespace
 * of its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "xsk_test.h"

#define UMEM_FRAMES	256
#define FRAME_SIZE	2048
#define RING_SIZE	64

static struct xdt_feature feature;
static int ifindex;
static int failures, checks;

static void check(bool ok, const char *what)
{
	checks++;
	if (!ok)
		failures++;
	printf("%s %d - %s\n", ok ? "ok" : "not ok", checks, what);
	fflush(stdout);
}

/* The rest of a sequence depends on this step: record the failure, stop. */
static void setup_failed(const char *what)
{
	check(false, what);
}

static const char *action_name(int act)
{
	static char buf[32];

	if (act == feature.act_redirect_xsk)
		return "XDP_REDIRECT_XSK";
	switch (act) {
	case XDP_ABORTED: return "XDP_ABORTED";
	case XDP_DROP: return "XDP_DROP";
	case XDP_PASS: return "XDP_PASS";
	case XDP_TX: return "XDP_TX";
	case XDP_REDIRECT: return "XDP_REDIRECT";
	}
	snprintf(buf, sizeof(buf), "action %d", act);
	return buf;
}

/* Run @prog once on a test frame received on queue 0 of the device. */
static int prog_run(int prog)
{
	uint8_t frame[XDT_FRAME_LEN];
	struct xdp_md ctx = {
		.data_end = sizeof(frame),
		.ingress_ifindex = ifindex,
		.rx_queue_index = 0,
	};
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = frame,
		.data_size_in = sizeof(frame),
		.ctx_in = &ctx,
		.ctx_size_in = sizeof(ctx),
		.repeat = 1);
	int err;

	xdt_frame_build(frame, 1, 0);
	err = bpf_prog_test_run_opts(prog, &opts);
	if (err) {
		MSG("BPF_PROG_RUN failed: %s\n", strerror(-err));
		return -1;
	}
	return opts.retval;
}

static void expect(int prog, int want, const char *situation)
{
	char what[256];
	int got = prog_run(prog);

	snprintf(what, sizeof(what), "%s: %s", situation, action_name(want));
	if (got != want)
		MSG("# %s: got %s\n", situation, action_name(got));
	check(got == want, what);
}

static int map_set(int map, uint32_t key, int fd)
{
	return bpf_map_update_elem(map, &key, &fd, BPF_ANY);
}

static int map_clear(int map, uint32_t key)
{
	return bpf_map_delete_elem(map, &key);
}

/* A socket with its own UMEM, bound to queue 0. */
static int open_owner(struct xdt_xsk *xsk, struct xdt_umem *umem, bool bind_it)
{
	int err = xdt_xsk_open(xsk, umem, RING_SIZE, RING_SIZE);

	if (!err && bind_it)
		err = xdt_xsk_bind(xsk, ifindex, 0, -1);
	if (err)
		MSG("socket with its own UMEM: %s\n", strerror(-err));
	return err;
}

/* A second socket on queue 0, sharing @owner's UMEM, with an Rx ring. */
static int open_shared(struct xdt_xsk *xsk, const struct xdt_xsk *owner)
{
	int err = xdt_xsk_open(xsk, NULL, RING_SIZE, 0);

	if (!err)
		err = xdt_xsk_bind(xsk, ifindex, 0, owner->fd);
	if (err)
		MSG("socket sharing the UMEM: %s\n", strerror(-err));
	return err;
}

/* A socket on queue 0 sharing @owner's UMEM with a Tx ring only. */
static int open_shared_tx_only(const struct xdt_xsk *owner)
{
	int fd = socket(AF_XDP, SOCK_RAW, 0), size = RING_SIZE;
	struct sockaddr_xdp sxdp = {
		.sxdp_family = AF_XDP,
		.sxdp_flags = XDP_SHARED_UMEM,
		.sxdp_ifindex = ifindex,
		.sxdp_queue_id = 0,
		.sxdp_shared_umem_fd = owner->fd,
	};

	if (fd < 0 ||
	    setsockopt(fd, SOL_XDP, XDP_TX_RING, &size, sizeof(size)) ||
	    bind(fd, (struct sockaddr *)&sxdp, sizeof(sxdp))) {
		MSG("Tx-only socket: %s\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void check_helper_answers(void)
{
	struct xdt_xsk s0, s1, s2;
	struct xdt_umem umem0, umem1;
	int map, prog, prog_bad_flags, tx_only;

	map = xdt_xskmap_create(4);
	if (map < 0) {
		setup_failed("create an XSKMAP");
		return;
	}
	prog = xdt_prog_redirect(XDT_PROG_XSK, map, XDP_PASS, &feature, false, BPF_XDP, false);
	check(prog >= 0, "an XDP program calling bpf_redirect_xsk() with an XSKMAP loads");
	prog_bad_flags = xdt_prog_redirect(XDT_PROG_XSK, map, 1 << 8, &feature, false,
					   BPF_XDP, false);
	if (prog < 0 || prog_bad_flags < 0)
		return;
	if (xdt_umem_alloc(&umem0, UMEM_FRAMES, FRAME_SIZE) ||
	    xdt_umem_alloc(&umem1, UMEM_FRAMES, FRAME_SIZE)) {
		setup_failed("allocate UMEMs");
		return;
	}

	expect(prog, XDP_PASS, "no socket on the queue, empty map (flags' fallback)");

	/* A socket in the map but not bound to the queue: the map answers. */
	if (open_owner(&s0, &umem0, false) || map_set(map, 0, s0.fd)) {
		setup_failed("an unbound socket in the map");
		return;
	}
	expect(prog, XDP_REDIRECT, "no socket on the queue, one in the map (map fallback)");

	if (open_owner(&s1, &umem1, true)) {
		setup_failed("bind a socket to queue 0");
		return;
	}
	expect(prog, XDP_REDIRECT,
	       "one socket on the queue, another one in the map: the map's entry");
	map_clear(map, 0);
	xdt_xsk_close(&s0);
	expect(prog, XDP_PASS, "one socket on the queue, not in the map: the map's miss");
	expect(prog_bad_flags, XDP_ABORTED,
	       "one socket on the queue, flags bpf_redirect_map() refuses");
	if (map_set(map, 0, s1.fd)) {
		setup_failed("put the socket in the map");
		return;
	}
	expect(prog, feature.act_redirect_xsk, "one socket on the queue, in the map at the key");
	expect(prog_bad_flags, XDP_ABORTED,
	       "one socket on the queue and in the map, flags bpf_redirect_map() refuses");
	map_clear(map, 0);
	expect(prog, XDP_PASS, "the socket left the map: the map's miss again");
	map_set(map, 0, s1.fd);

	if (open_shared(&s2, &s1)) {
		setup_failed("bind a second socket sharing the UMEM");
		return;
	}
	expect(prog, XDP_REDIRECT, "two sockets on the queue (shared UMEM), one in the map");
	map_clear(map, 0);
	expect(prog, XDP_PASS, "two sockets on the queue, empty map");
	map_set(map, 0, s1.fd);

	xdt_xsk_close(&s2);
	expect(prog, feature.act_redirect_xsk, "second socket closed: one left on the queue");

	tx_only = open_shared_tx_only(&s1);
	if (tx_only < 0) {
		setup_failed("bind a Tx-only socket sharing the UMEM");
		return;
	}
	expect(prog, feature.act_redirect_xsk,
	       "a second socket without Rx ring does not count");
	close(tx_only);

	/* The first socket leaves; the one left is the second. */
	if (open_shared(&s2, &s1)) {
		setup_failed("bind a second socket again");
		return;
	}
	expect(prog, XDP_REDIRECT, "two sockets again");
	map_set(map, 0, s2.fd);
	xdt_xsk_close(&s1);
	expect(prog, feature.act_redirect_xsk,
	       "first socket closed, the one sharing its UMEM is left and in the map");
	map_clear(map, 0);
	expect(prog, XDP_PASS, "the one left, out of the map: the map's miss");
	xdt_xsk_close(&s2);
	expect(prog, XDP_PASS, "all sockets closed: back to the map's answer");

	close(prog_bad_flags);
	close(prog);
	close(map);
	xdt_umem_free(&umem0);
	xdt_umem_free(&umem1);
}

static void check_verifier(void)
{
	int array, xskmap, prog;

	array = bpf_map_create(BPF_MAP_TYPE_ARRAY, "xdt_array", 4, 4, 4, NULL);
	prog = xdt_prog_redirect(XDT_PROG_XSK, array, XDP_PASS, &feature, false, BPF_XDP, true);
	check(prog < 0, "the verifier refuses bpf_redirect_xsk() with an ARRAY map");
	if (prog >= 0)
		close(prog);
	close(array);

	xskmap = xdt_xskmap_create(1);
	prog = xdt_prog_redirect(XDT_PROG_MAP, xskmap, XDP_PASS, &feature, false, BPF_XDP, false);
	check(prog >= 0, "bpf_redirect_map() still accepts an XSKMAP");
	if (prog >= 0)
		close(prog);

	prog = xdt_prog_redirect(XDT_PROG_XSK, xskmap, XDP_PASS, &feature, false,
				 BPF_XDP_DEVMAP, true);
	check(prog < 0, "bpf_redirect_xsk() is not offered to devmap programs");
	if (prog >= 0)
		close(prog);
	close(xskmap);
}

/*
 * A context that does not handle XDP_REDIRECT_XSK (live-frames BPF_PROG_RUN)
 * gets the raw value from a program: a warning and a drop, not a crash.
 */
static void check_unsupported(void)
{
	uint8_t frame[XDT_FRAME_LEN];
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = frame,
		.data_size_in = sizeof(frame),
		.repeat = 64,
		.flags = BPF_F_TEST_XDP_LIVE_FRAMES);
	int prog, err;

	xdt_frame_build(frame, 1, 0);
	prog = xdt_prog_return(feature.act_redirect_xsk);
	if (prog < 0) {
		check(false, "load a program returning XDP_REDIRECT_XSK");
		return;
	}
	err = bpf_prog_test_run_opts(prog, &opts);
	if (err)
		MSG("# live-frames run: %s\n", strerror(-err));
	check(err == 0, "XDP_REDIRECT_XSK where unsupported (live frames) is dropped");
	close(prog);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "ifname", required_argument, NULL, 'i' },
		{ "require", no_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	const char *ifname = NULL, *why;
	bool require = false;
	int opt, err;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'r': require = true; break;
		default:
			MSG("usage: %s [--ifname IF] [--require]\n", argv[0]);
			return 2;
		}
	}

	err = xdt_feature_probe(&feature, &why);
	if (err) {
		printf("feature absent: %s\n", why);
		return require ? EXIT_FAILURE : EXIT_SKIP;
	}
	printf("# BPF_FUNC_redirect_xsk = %d, XDP_REDIRECT_XSK = %d (kernel BTF)\n",
	       feature.func_redirect_xsk, feature.act_redirect_xsk);

	if (!ifname) {
		if (unshare(CLONE_NEWNET)) {
			MSG("unshare(CLONE_NEWNET): %s\n", strerror(errno));
			return EXIT_FAILURE;
		}
		ifname = "lo";
	}
	ifindex = xdt_ifindex(ifname);
	if (ifindex < 0) {
		MSG("%s: %s\n", ifname, strerror(-ifindex));
		return EXIT_FAILURE;
	}
	printf("# device %s (ifindex %d), queue 0\n", ifname, ifindex);

	check_helper_answers();
	check_verifier();
	check_unsupported();

	printf("1..%d\n# %d of %d checks failed\n", checks, failures, checks);
	return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
