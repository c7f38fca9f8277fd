// SPDX-License-Identifier: BSD-3-Clause
/*
 * xsk_bench --rx-ifname A --tx-ifname B [--seconds S] [--rounds R]
 *           [--cpu N] [--csv FILE] [--medians FILE] [--zero-copy]
 *
 * Receive cost of AF_XDP on veth for these XDP programs on A (native mode),
 * on the kernel it runs on (kernel/bench.sh runs it on the unpatched build,
 * which receives one frame at a time, then on the patched one, which
 * receives consecutive frames for one socket in batches, and compares):
 *
 *   drop           XDP_DROP: generator and veth alone, the baseline
 *   map            bpf_redirect_map(xskmap, queue, XDP_PASS)
 *   xsk            bpf_redirect_xsk(ctx, xskmap, queue, XDP_PASS), where the
 *                  kernel has the helper (layer b)
 *   alt            bpf_redirect_map() alternating between two sockets on the
 *                  queue (shared UMEM): every frame ends a batch
 *
 * With --zero-copy the sockets are bound with XDP_ZEROCOPY (the patched
 * kernel's veth): each frame is copied into a buffer of the socket's pool
 * before the program runs, XDP_DROP included, and a redirect to the socket
 * hands that buffer over. --medians writes the medians of every program
 * (program,kernel_ns,receive_ns,delivered_per_s) for bench.sh's comparison.
 *
 * (Two sockets of two queues cannot alternate within one NAPI poll: a poll
 * serves one queue, and a frame redirected to another queue's socket is
 * dropped. The worst case for batching is two sockets of the same queue.)
 *
 * B and A are the two ends of a veth pair. The generator is in the kernel:
 * BPF_PROG_RUN in live-frames mode with a program redirecting 64-byte
 * frames to B, which arrive on A as xdp_frames. Each call sends GEN_REPEAT
 * frames in batches of 64; after each batch the test run flushes and
 * veth's NAPI poll runs in the same call (softirq on local_bh_enable): XDP
 * program, copy into the socket's UMEM, Rx ring. So BPF_PROG_RUN's own
 * measurement of its time per frame covers generation AND receive. After
 * each call the same thread empties the Rx ring and refills the fill ring
 * (GEN_REPEAT is below both ring sizes: no frame is lost on the way).
 * Everything runs on one CPU, one step after the other: nothing waits for
 * anything, and the other CPU stays idle.
 *
 * Each round measures every program for --seconds, in turn (interleaved,
 * so that slow drifts hit all alike). Per program: kernel ns per frame
 * (BPF_PROG_RUN's), the frames per second one CPU sustains at that cost,
 * the receive part (minus the drop baseline), user-space ns per frame (the
 * ring handling), medians over the rounds, and ratios to "map". The wall
 * clock rate of delivered frames is printed too, but it mostly measures
 * BPF_PROG_RUN's set-up: every call adds the program to the XDP dispatcher
 * and removes it, two RCU grace periods. Under qemu's -icount, time is
 * counted in guest instructions: the figures are then instructions, not
 * host-load noise.
 */
#define _GNU_SOURCE
#include <errno.h>
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

#define UMEM_FRAMES	16384
#define FRAME_SIZE	2048
#define RX_RING		8192
#define FILL_RING	16384
#define GEN_REPEAT	4096	/* frames per BPF_PROG_RUN call, < RX_RING */
#define GEN_BATCH	64	/* frames per live-frames batch (one flush) */
#define WARMUP_CALLS	8
#define MAX_ROUNDS	64

enum variant { V_DROP, V_MAP, V_XSK, V_ALT, V_COUNT };

struct variant_def {
	const char *name;
	bool helper;		/* needs bpf_redirect_xsk */
	bool alternating;	/* two sockets, frames alternate */
};

static const struct variant_def variants[V_COUNT] = {
	[V_DROP] = { "drop", false, false },
	[V_MAP] = { "map", false, false },
	[V_XSK] = { "xsk", true, false },
	[V_ALT] = { "alt", false, true },
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

struct bench {
	struct xdt_umem umem;
	struct xdt_xsk xsk;
	struct xdt_xsk second;	/* on the same queue, for the alternating rows */
	int ifindex;
	int gen_prog;
	char stat_path[128];
	uint8_t frame[XDT_FRAME_LEN];
};

/* One window's totals */
struct window {
	uint64_t wall_ns;	/* elapsed */
	uint64_t kernel_ns;	/* BPF_PROG_RUN's own time, all frames */
	uint64_t user_ns;	/* ring handling */
	uint64_t generated;	/* frames sent by the generator */
	uint64_t processed;	/* frames veth's XDP saw (rx_packets of A) */
	uint64_t delivered;	/* descriptors taken from the Rx ring */
	uint64_t lost;		/* the socket's rx_dropped + rx_ring_full */
};

static uint64_t read_u64_file(const char *path)
{
	unsigned long long v = 0;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* Take everything from an Rx ring and give it back to the fill ring. */
static uint64_t drain_ring(struct bench *b, struct xdt_ring *rx)
{
	struct xdp_desc descs[256];
	uint64_t addrs[256], total = 0;
	uint32_t n, i;

	while ((n = xdt_rx_take(rx, descs, 256))) {
		for (i = 0; i < n; i++)
			addrs[i] = descs[i].addr - descs[i].addr % FRAME_SIZE;
		if (xdt_fill_addrs(&b->xsk.fill, addrs, n) != n)
			MSG("fill ring overflow\n");	/* cannot happen */
		total += n;
	}
	return total;
}

static uint64_t drain(struct bench *b)
{
	uint64_t total = drain_ring(b, &b->xsk.rx);

	if (b->second.rx.map)
		total += drain_ring(b, &b->second.rx);
	return total;
}

/*
 * The second socket exists only while the alternating rows run: with two
 * sockets on the queue, bpf_redirect_xsk() would fall back to the map.
 */
static int open_second(struct bench *b, int map2)
{
	uint32_t one = 1;
	int err;

	err = xdt_xsk_open(&b->second, NULL, RX_RING, 0);
	if (!err)
		err = xdt_xsk_bind(&b->second, b->ifindex, 0, b->xsk.fd);
	if (!err && bpf_map_update_elem(map2, &one, &b->second.fd, BPF_ANY))
		err = -errno;
	if (err)
		MSG("second socket on the queue: %s\n", strerror(-err));
	return err;
}

/* One generator call, then the ring handling; adds to @w. */
static int step(struct bench *b, struct window *w)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = b->frame,
		.data_size_in = sizeof(b->frame),
		.repeat = GEN_REPEAT,
		.batch_size = GEN_BATCH,
		.flags = BPF_F_TEST_XDP_LIVE_FRAMES);
	uint64_t t0, t1;
	int err;

	err = bpf_prog_test_run_opts(b->gen_prog, &opts);
	if (err) {
		MSG("generator: BPF_PROG_RUN: %s\n", strerror(-err));
		return err;
	}
	/* duration: the kernel's average ns per repeat */
	w->kernel_ns += (uint64_t)opts.duration * GEN_REPEAT;
	w->generated += GEN_REPEAT;
	t0 = xdt_now_ns();
	w->delivered += drain(b);
	t1 = xdt_now_ns();
	w->user_ns += t1 - t0;
	return 0;
}

static int measure(struct bench *b, double seconds, struct window *w)
{
	struct xdp_statistics s0, s1, t0s = { 0 }, t1s = { 0 };
	uint64_t p0, t0, end;
	int i, err;

	for (i = 0; i < WARMUP_CALLS; i++) {
		struct window ignored = { 0 };

		err = step(b, &ignored);
		if (err)
			return err;
	}
	memset(w, 0, sizeof(*w));
	xdt_xsk_stats(&b->xsk, &s0);
	if (b->second.rx.map)
		xdt_xsk_stats(&b->second, &t0s);
	p0 = read_u64_file(b->stat_path);
	t0 = xdt_now_ns();
	end = t0 + (uint64_t)(seconds * 1e9);
	do {
		err = step(b, w);
		if (err)
			return err;
	} while (xdt_now_ns() < end && !interrupted);
	w->wall_ns = xdt_now_ns() - t0;
	w->processed = read_u64_file(b->stat_path) - p0;
	xdt_xsk_stats(&b->xsk, &s1);
	if (b->second.rx.map)
		xdt_xsk_stats(&b->second, &t1s);
	w->lost = (s1.rx_dropped - s0.rx_dropped) + (s1.rx_ring_full - s0.rx_ring_full) +
		  (t1s.rx_dropped - t0s.rx_dropped) + (t1s.rx_ring_full - t0s.rx_ring_full);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
	double s[MAX_ROUNDS];

	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static double pct(double v, double ref)
{
	return 100.0 * (v / ref - 1);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "rx-ifname", required_argument, NULL, 'a' },
		{ "tx-ifname", required_argument, NULL, 'b' },
		{ "seconds", required_argument, NULL, 's' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "csv", required_argument, NULL, 'o' },
		{ "medians", required_argument, NULL, 'm' },
		{ "zero-copy", no_argument, NULL, 'z' },
		{ NULL, 0, NULL, 0 },
	};
	const char *rx_ifname = NULL, *tx_ifname = NULL, *csv_path = NULL, *why;
	const char *medians_path = NULL;
	static double pps[V_COUNT][MAX_ROUNDS], kns[V_COUNT][MAX_ROUNDS], uns[V_COUNT][MAX_ROUNDS];
	double med_pps[V_COUNT], med_k[V_COUNT], med_u[V_COUNT], rx[V_COUNT];
	int opt, rounds = 5, cpu = 1, tx_ifindex, r, v, err;
	int progs[V_COUNT], map, map2, counter, rc = EXIT_FAILURE;
	bool has_helper, run[V_COUNT];
	double seconds = 3;
	struct xdt_feature feature;
	static struct bench b;
	uint16_t bind_mode = XDP_COPY;
	FILE *csv = NULL;
	uint32_t zero = 0;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'a': rx_ifname = optarg; break;
		case 'b': tx_ifname = optarg; break;
		case 's': seconds = atof(optarg); break;
		case 'r': rounds = atoi(optarg); break;
		case 'c': cpu = atoi(optarg); break;
		case 'o': csv_path = optarg; break;
		case 'm': medians_path = optarg; break;
		case 'z': bind_mode = XDP_ZEROCOPY; break;
		default: goto usage;
		}
	}
	if (!rx_ifname || !tx_ifname || rounds < 1 || rounds > MAX_ROUNDS || seconds <= 0)
		goto usage;

	has_helper = xdt_feature_probe(&feature, &why) == 0;
	if (!has_helper)
		printf("# feature absent: %s; no bpf_redirect_xsk rows\n", why);
	for (v = 0; v < V_COUNT; v++)
		run[v] = has_helper || !variants[v].helper;

	b.ifindex = xdt_ifindex(rx_ifname);
	tx_ifindex = xdt_ifindex(tx_ifname);
	if (b.ifindex < 0 || tx_ifindex < 0) {
		MSG("no such device: %s\n", b.ifindex < 0 ? rx_ifname : tx_ifname);
		return EXIT_FAILURE;
	}
	snprintf(b.stat_path, sizeof(b.stat_path), "/sys/class/net/%s/statistics/rx_packets",
		 rx_ifname);
	xdt_frame_build(b.frame, 1, 0);
	if (xdt_pin_cpu(cpu))
		MSG("cannot pin to CPU %d, running unpinned\n", cpu);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	b.second.fd = -1;
	map = xdt_xskmap_create(1);
	map2 = xdt_xskmap_create(2);
	counter = xdt_counter_create();
	if (map < 0 || map2 < 0 || counter < 0 ||
	    xdt_umem_alloc(&b.umem, UMEM_FRAMES, FRAME_SIZE) ||
	    xdt_xsk_open(&b.xsk, &b.umem, RX_RING, FILL_RING) ||
	    xdt_xsk_bind_mode(&b.xsk, b.ifindex, 0, -1, bind_mode) ||
	    xdt_xsk_zero_copy(&b.xsk) != (bind_mode == XDP_ZEROCOPY) ||
	    bpf_map_update_elem(map, &zero, &b.xsk.fd, BPF_ANY) ||
	    bpf_map_update_elem(map2, &zero, &b.xsk.fd, BPF_ANY) ||
	    xdt_fill(&b.xsk.fill, &b.umem, 0, UMEM_FRAMES) != UMEM_FRAMES) {
		MSG("socket set-up on %s failed: %s\n", rx_ifname, strerror(errno));
		return EXIT_FAILURE;
	}
	/* The same map, with the socket in it, for the single-socket
	 * programs: only the helper differs. The alternating program has a
	 * map of two, the second socket joining it for its rows.
	 */
	progs[V_DROP] = xdt_prog_return(XDP_DROP);
	progs[V_MAP] =
		xdt_prog_redirect(XDT_PROG_MAP, map, XDP_PASS, &feature, false, BPF_XDP, false);
	progs[V_XSK] = !has_helper ? -1 :
		xdt_prog_redirect(XDT_PROG_XSK, map, XDP_PASS, &feature, false, BPF_XDP, false);
	progs[V_ALT] = xdt_prog_redirect_alternating(map2, counter);
	b.gen_prog = xdt_prog_redirect_ifindex(tx_ifindex);
	for (v = 0; v < V_COUNT; v++)
		if (run[v] && progs[v] < 0)
			return EXIT_FAILURE;
	if (b.gen_prog < 0)
		return EXIT_FAILURE;
	if (csv_path) {
		csv = fopen(csv_path, "w");
		if (csv)
			fprintf(csv, "round,program,wall_s,generated,processed,delivered,"
				     "socket_lost,delivered_per_s,kernel_ns_per_frame,"
				     "user_ns_per_frame\n");
	}

	printf("# %d rounds of %.1f s per program, on CPU %d; %d frames per BPF_PROG_RUN;"
	       " sockets in %s mode\n", rounds, seconds, cpu, GEN_REPEAT,
	       bind_mode == XDP_ZEROCOPY ? "zero-copy" : "copy");
	printf("# %-5s %-10s %10s %10s %10s %8s %12s %10s %10s\n", "round", "program",
	       "generated", "processed", "delivered", "lost", "frames/s", "kern ns/fr",
	       "user ns/fr");
	for (r = 0; r < rounds && !interrupted; r++) {
		for (v = 0; v < V_COUNT && !interrupted; v++) {
			const struct variant_def *def = &variants[v];
			struct window w;
			uint64_t counted;

			if (!run[v])
				continue;
			if (def->alternating && open_second(&b, map2))
				goto out;
			err = bpf_xdp_attach(b.ifindex, progs[v], XDP_FLAGS_DRV_MODE, NULL);
			if (err) {
				MSG("attach %s to %s: %s\n", def->name, rx_ifname, strerror(-err));
				goto out;
			}
			err = measure(&b, seconds, &w);
			if (def->alternating)
				xdt_xsk_close(&b.second);
			if (err)
				goto out;
			/* drop delivers nothing: count what veth processed */
			counted = v == V_DROP ? w.processed : w.delivered;
			pps[v][r] = counted / (w.wall_ns / 1e9);
			kns[v][r] = (double)w.kernel_ns / w.generated;
			uns[v][r] = counted ? (double)w.user_ns / counted : 0;
			printf("  %-5d %-10s %10lu %10lu %10lu %8lu %12.0f %10.0f %10.0f\n", r + 1,
			       def->name, (unsigned long)w.generated,
			       (unsigned long)w.processed, (unsigned long)w.delivered,
			       (unsigned long)w.lost, pps[v][r], kns[v][r], uns[v][r]);
			fflush(stdout);
			if (csv)
				fprintf(csv, "%d,%s,%.3f,%lu,%lu,%lu,%lu,%.0f,%.1f,%.1f\n", r + 1,
					def->name, w.wall_ns / 1e9,
					(unsigned long)w.generated, (unsigned long)w.processed,
					(unsigned long)w.delivered, (unsigned long)w.lost,
					pps[v][r], kns[v][r], uns[v][r]);
		}
	}
	rounds = r;
	if (!rounds)
		goto out;

	for (v = 0; v < V_COUNT; v++) {
		if (!run[v])
			continue;
		med_pps[v] = median(pps[v], rounds);
		med_k[v] = median(kns[v], rounds);
		med_u[v] = median(uns[v], rounds);
		rx[v] = med_k[v] - med_k[V_DROP];
	}
	printf("\n# medians over %d rounds; ratios matter, absolute values are TCG's\n", rounds);
	printf("# kernel ns/frame: BPF_PROG_RUN's own time per frame, which covers generating\n"
	       "# the frame AND receiving it (veth NAPI, XDP, copy to the socket) on one CPU;\n"
	       "# frames/s = 1e9 / that; receive = kernel - drop's kernel (the AF_XDP part);\n"
	       "# vs map: against bpf_redirect_map() on this kernel\n");
	printf("| program | kernel ns/frame | frames/s | vs map | receive ns/frame | vs map |"
	       " delivered/s (wall) |\n");
	printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	for (v = 0; v < V_COUNT; v++) {
		double fps = 1e9 / med_k[v], fps_map = 1e9 / med_k[V_MAP];

		if (!run[v])
			continue;
		if (v == V_DROP)
			printf("| %s | %.0f | %.0f | %+.1f%% | - | - | %.0f |\n",
			       variants[v].name, med_k[v], fps, pct(fps, fps_map), med_pps[v]);
		else
			printf("| %s | %.0f | %.0f | %+.1f%% | %.0f | %+.1f%% | %.0f |\n",
			       variants[v].name, med_k[v], fps, pct(fps, fps_map), rx[v],
			       pct(rx[v], rx[V_MAP]), med_pps[v]);
	}
	printf("# user-space ring handling, ns/frame:");
	for (v = V_MAP; v < V_COUNT; v++)
		if (run[v])
			printf(" %s %.0f", variants[v].name, med_u[v]);
	printf("\n");
	if (medians_path) {
		FILE *m = fopen(medians_path, "w");

		if (!m) {
			MSG("%s: %s\n", medians_path, strerror(errno));
			goto out;
		}
		fprintf(m, "program,kernel_ns,receive_ns,delivered_per_s\n");
		for (v = 0; v < V_COUNT; v++)
			if (run[v])
				fprintf(m, "%s,%.1f,%.1f,%.0f\n", variants[v].name, med_k[v],
					v == V_DROP ? 0 : rx[v], med_pps[v]);
		if (fclose(m)) {
			MSG("%s: %s\n", medians_path, strerror(errno));
			goto out;
		}
	}
	rc = EXIT_SUCCESS;
out:
	bpf_xdp_detach(b.ifindex, XDP_FLAGS_DRV_MODE, NULL);
	if (csv)
		fclose(csv);
	close(b.gen_prog);
	xdt_xsk_close(&b.second);
	xdt_xsk_close(&b.xsk);
	xdt_umem_free(&b.umem);
	return rc;
usage:
	MSG("usage: %s --rx-ifname A --tx-ifname B [--seconds S] [--rounds R] [--cpu N]"
	    " [--csv FILE] [--medians FILE] [--zero-copy]\n", argv[0]);
	return 2;
}
