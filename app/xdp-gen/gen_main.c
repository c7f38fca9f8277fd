/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * afxdp-gen: a traffic generator that sends from the kernel side, with
 * live-frames BPF_PROG_RUN, out of a veth into its peer, where the device
 * under test receives; where the kernel refuses live frames, with AF_XDP
 * sockets in copy mode, else with AF_PACKET.  This file: options, the
 * choice of the method, the sending threads, the progress line, the
 * exact-count top-up and the summary.
 *
 * Sent means taken into the peer's receive ring: the veth counts those
 * frames, and those it dropped because the ring was full, in its ethtool
 * statistics (tx_queue_<i>_xdp_xmit[_errors]) for live frames, in its
 * transmit counters (tx_packets, tx_dropped) for the AF_XDP method.  With
 * --count, frames dropped that way are sent again until exactly the count
 * is in.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "gen.h"

/* Exit statuses. */
#define EXIT_RUNTIME	1	/* the run failed */
#define EXIT_USAGE	2	/* bad options: nothing was sent */

/* Frames per batch of a live-frames run: the kernel flushes redirects after each. */
#define DEFAULT_BATCH	64
#define MAX_BATCH	256	/* the kernel's TEST_XDP_MAX_BATCH */

/*
 * Frames per BPF_PROG_RUN call.  A call with repeat > 1 switches the XDP
 * dispatcher to the program and back, two RCU grace periods (8-36 ms here
 * on a 2-vCPU VM), so calls are long: about 2 s at 8 Mpps.  Threads are
 * stopped in the middle of a call with a signal (STOP_SIGNO), which makes
 * the kernel end the call after the current batch.
 */
#define MAX_CALL	(1u << 24)
#define STOP_SIGNO	SIGUSR1

/* AF_PACKET: frames between two updates of the progress counter. */
#define PACKET_CHUNK	65536u

/* AF_XDP: how long the veth's counters may lag behind the last sendto() (its peer's NAPI). */
#define XSK_SETTLE_NS	1000000000ull

/* Rounds of re-sending frames the peer's full ring dropped, before giving up. */
#define MAX_TOPUP_ROUNDS 10000

enum method { METHOD_AUTO, METHOD_LIVE, METHOD_AFXDP, METHOD_PACKET };

/* Names in the JSON and on the command line. */
static const char *const method_json[] = { "auto", "live", "afxdp", "af_packet" };

enum stop_reason {
	STOP_NONE,
	STOP_DONE,		/* count sent or duration over */
	STOP_SIGNAL,
	STOP_ERROR,
};

struct opts {
	const char *dev;
	unsigned int size;
	uint64_t count;			/* 0: no count */
	double duration;		/* 0: none */
	unsigned int flows;
	bool dst_mac_set, src_mac_set;
	uint8_t dst_mac[ETH_ALEN_], src_mac[ETH_ALEN_];
	uint32_t src_ip, dst_ip;	/* host order */
	uint16_t src_port, dst_port;
	unsigned int threads;
	int cpus[GEN_MAX_THREADS];
	unsigned int n_cpus;
	unsigned int batch;
	enum method method;
	bool dry_run;
	bool quiet, json;
};

struct gen;

struct worker {
	struct gen *g;
	pthread_t tid;
	unsigned int index;
	int cpu;			/* -1: not pinned */
	uint8_t *frame;			/* this thread's template */
	uint64_t share;			/* --count: this thread's part */
	struct gen_packet pkt;		/* METHOD_PACKET */
	struct gen_xsk xsk;		/* METHOD_AFXDP */
	atomic_uint_fast64_t sent;	/* METHOD_PACKET: frames accepted */
	int err;			/* a failed call's negative errno */
	atomic_bool finished;
	uint64_t t_end;			/* when its last call returned */
	double timed_ns;		/* the kernel's timing of the calls that ran to the end */
	uint64_t timed_frames;
};

struct gen {
	struct opts o;
	struct gen_iface ifc;
	struct gen_frame_spec spec;
	struct gen_cfg cfg;
	enum method method;
	char why_not_live[256];		/* METHOD_AUTO: why an earlier method was not taken */
	char why_not_afxdp[256];
	struct gen_live *live;
	struct worker *workers;
	/* The threads wait at the gate until all are created. */
	pthread_mutex_t gate_lock;
	pthread_cond_t gate_cond;
	bool gate_open;
	atomic_int stop;		/* enum stop_reason */
	uint64_t t_start, deadline;	/* monotonic ns; deadline 0: none */
	uint64_t t_stop;		/* when watch() saw a stop request */
	bool have_stats;		/* the veth's xdp_xmit counters (live), tx counters (afxdp) */
	bool shared_queue;		/* two threads may send into one peer queue */
	uint64_t xmit0, drop0;		/* their values before the run */
};

static atomic_int *signal_stop;

static void
on_signal(int sig)
{
	int none = STOP_NONE;

	(void)sig;
	if (signal_stop)
		atomic_compare_exchange_strong(signal_stop, &none, STOP_SIGNAL);
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void
usage(FILE *f)
{
	fprintf(f,
"Usage: afxdp-gen --dev IFACE [options]\n"
"Sends Ethernet/IPv4/UDP frames out of IFACE, from the kernel side: BPF_PROG_RUN\n"
"with BPF_F_TEST_XDP_LIVE_FRAMES runs an XDP program that returns XDP_TX on a\n"
"frame template.  On a veth, frames arrive at its peer (which needs an XDP\n"
"program attached, or GRO on, to take them).  Where the kernel refuses live\n"
"frames, falls back to AF_XDP sockets in copy mode (slower), and where those\n"
"fail, to an AF_PACKET socket (slower still); the output says which ran, and why.\n"
"\n"
"  -d, --dev IFACE        interface to send out of (required)\n"
"  -s, --size BYTES       frame size without FCS, %u..MTU+14 (default 64)\n"
"  -n, --count N          send exactly N frames (default: until Ctrl-C)\n"
"  -t, --duration SECS    send for SECS seconds (decimals allowed)\n"
"  -f, --flows N          vary the UDP source port and the IPv4 source address\n"
"                         over N flows, frame after frame (default 1)\n"
"      --dst-mac MAC      destination MAC (default: the veth peer's if found,\n"
"                         else ff:ff:ff:ff:ff:ff; the header says which)\n"
"      --src-mac MAC      source MAC (default: IFACE's)\n"
"      --src-ip ADDR      IPv4 source of flow 0 (default 198.18.0.1)\n"
"      --dst-ip ADDR      IPv4 destination (default 198.18.0.2)\n"
"      --src-port PORT    UDP source port of flow 0 (default 1024)\n"
"      --dst-port PORT    UDP destination port (default 9)\n"
"  -T, --threads N        sending threads, 1..%d (default 1, or one per --cpus entry)\n"
"  -c, --cpus LIST        pin the threads to these CPUs, round robin (e.g. 0,2-3)\n"
"  -b, --batch N          frames per live-frames batch, or per AF_XDP sendto(),\n"
"                         1..%d (default %d)\n"
"  -m, --method M         auto (default: live, else afxdp, else packet), live,\n"
"                         afxdp (AF_XDP copy mode) or packet (AF_PACKET)\n"
"      --dry-run          build the frames and drop them in the kernel (XDP_DROP):\n"
"                         times the generator alone; nothing is sent\n"
"  -q, --quiet            no header and no progress line\n"
"  -j, --json             end with one JSON line: sent, seconds, pps, bps, ...\n"
"  -h, --help             this text\n"
"\n"
"Each frame carries a per-thread sequence number (see README.md).  Exit status:\n"
"0 done (also when stopped by Ctrl-C), 1 run failed, 2 bad options.\n",
		GEN_MIN_FRAME, GEN_MAX_THREADS, MAX_BATCH, DEFAULT_BATCH);
}

static void __attribute__((format(printf, 1, 2), noreturn))
usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "afxdp-gen: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'afxdp-gen --help'.\n");
	exit(EXIT_USAGE);
}

static uint64_t
parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max)
		usage_error("%s %s: expected a whole number from %" PRIu64 " to %" PRIu64,
			    opt, s, min, max);
	return v;
}

static void
parse_mac(const char *opt, const char *s, uint8_t *mac)
{
	unsigned int b[ETH_ALEN_];
	char tail;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &tail) != 6)
		usage_error("%s %s: expected a MAC address like 02:00:00:00:00:01", opt, s);
	for (int i = 0; i < ETH_ALEN_; i++) {
		if (b[i] > 0xff)
			usage_error("%s %s: expected a MAC address like 02:00:00:00:00:01", opt, s);
		mac[i] = (uint8_t)b[i];
	}
}

static uint32_t
parse_ip(const char *opt, const char *s)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		usage_error("%s %s: expected an IPv4 address like 198.18.0.1", opt, s);
	return ntohl(a.s_addr);
}

static void
parse_cpus(struct opts *o, const char *s)
{
	const char *p = s;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	o->n_cpus = 0;
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			goto bad;
		p = end;
		if (*p == '-') {
			b = strtol(++p, &end, 10);
			if (end == p)
				goto bad;
			p = end;
		}
		if (a < 0 || b < a || b >= ncpu)
			usage_error("--cpus %s: CPUs go from 0 to %ld here", s, ncpu - 1);
		for (long c = a; c <= b; c++) {
			if (o->n_cpus == GEN_MAX_THREADS)
				usage_error("--cpus %s: at most %d CPUs", s, GEN_MAX_THREADS);
			o->cpus[o->n_cpus++] = (int)c;
		}
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	if (o->n_cpus)
		return;
bad:
	usage_error("--cpus %s: expected a list like 0,2-3", s);
}

static void
parse_opts(struct opts *o, int argc, char **argv)
{
	enum { OPT_DST_MAC = 256, OPT_SRC_MAC, OPT_SRC_IP, OPT_DST_IP, OPT_SRC_PORT, OPT_DST_PORT,
	       OPT_DRY_RUN };
	static const struct option longopts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "size", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 't' },
		{ "flows", required_argument, NULL, 'f' },
		{ "dst-mac", required_argument, NULL, OPT_DST_MAC },
		{ "src-mac", required_argument, NULL, OPT_SRC_MAC },
		{ "src-ip", required_argument, NULL, OPT_SRC_IP },
		{ "dst-ip", required_argument, NULL, OPT_DST_IP },
		{ "src-port", required_argument, NULL, OPT_SRC_PORT },
		{ "dst-port", required_argument, NULL, OPT_DST_PORT },
		{ "threads", required_argument, NULL, 'T' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "batch", required_argument, NULL, 'b' },
		{ "method", required_argument, NULL, 'm' },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "quiet", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool threads_set = false;
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->size = 64;
	o->flows = 1;
	o->src_ip = 0xc6120001;		/* 198.18.0.1: RFC 2544's benchmarking range */
	o->dst_ip = 0xc6120002;		/* 198.18.0.2 */
	o->src_port = 1024;
	o->dst_port = 9;		/* discard */
	o->threads = 1;
	o->batch = DEFAULT_BATCH;

	while ((c = getopt_long(argc, argv, "d:s:n:t:f:T:c:b:m:qjh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o->dev = optarg;
			break;
		case 's':
			/* The upper bound is checked against the MTU once the device is known. */
			o->size = (unsigned int)parse_u64("--size", optarg, 0, 1u << 20);
			if (o->size < GEN_MIN_FRAME)
				usage_error("--size %s: frames have %d bytes at least (Ethernet's minimum without FCS)",
					    optarg, GEN_MIN_FRAME);
			break;
		case 'n':
			o->count = parse_u64("--count", optarg, 1, UINT64_MAX);
			break;
		case 't':
			errno = 0;
			o->duration = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o->duration > 0) || o->duration > 1e7)
				usage_error("--duration %s: expected a number of seconds above 0", optarg);
			break;
		case 'f':
			o->flows = (unsigned int)parse_u64("--flows", optarg, 1, 65536);
			break;
		case OPT_DST_MAC:
			parse_mac("--dst-mac", optarg, o->dst_mac);
			o->dst_mac_set = true;
			break;
		case OPT_SRC_MAC:
			parse_mac("--src-mac", optarg, o->src_mac);
			o->src_mac_set = true;
			break;
		case OPT_SRC_IP:
			o->src_ip = parse_ip("--src-ip", optarg);
			break;
		case OPT_DST_IP:
			o->dst_ip = parse_ip("--dst-ip", optarg);
			break;
		case OPT_SRC_PORT:
			o->src_port = (uint16_t)parse_u64("--src-port", optarg, 0, 65535);
			break;
		case OPT_DST_PORT:
			o->dst_port = (uint16_t)parse_u64("--dst-port", optarg, 0, 65535);
			break;
		case 'T':
			o->threads = (unsigned int)parse_u64("--threads", optarg, 1, GEN_MAX_THREADS);
			threads_set = true;
			break;
		case 'c':
			parse_cpus(o, optarg);
			break;
		case 'b':
			o->batch = (unsigned int)parse_u64("--batch", optarg, 1, MAX_BATCH);
			break;
		case 'm':
			if (strcmp(optarg, "auto") == 0)
				o->method = METHOD_AUTO;
			else if (strcmp(optarg, "live") == 0)
				o->method = METHOD_LIVE;
			else if (strcmp(optarg, "afxdp") == 0)
				o->method = METHOD_AFXDP;
			else if (strcmp(optarg, "packet") == 0)
				o->method = METHOD_PACKET;
			else
				usage_error("--method %s: expected auto, live, afxdp or packet", optarg);
			break;
		case OPT_DRY_RUN:
			o->dry_run = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			fprintf(stderr, "Try 'afxdp-gen --help'.\n");
			exit(EXIT_USAGE);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!o->dev)
		usage_error("--dev IFACE is required: the interface to send out of (one end of a veth pair)");
	if (o->dry_run && (o->method == METHOD_PACKET || o->method == METHOD_AFXDP))
		usage_error("--dry-run times live frames: it does not go with --method %s",
			    o->method == METHOD_PACKET ? "packet" : "afxdp");
	if (o->dry_run)
		o->method = METHOD_LIVE;
	if (o->count && o->duration > 0)
		usage_error("--count and --duration exclude each other");
	if (o->n_cpus && !threads_set)
		o->threads = o->n_cpus;
	if (o->flows > 65536u - o->src_port)
		usage_error("--flows %u: with --src-port %u, the source ports of the flows would pass 65535",
			    o->flows, o->src_port);
	if (o->flows - 1 > UINT32_MAX - o->src_ip)
		usage_error("--flows %u: the source addresses of the flows would pass 255.255.255.255",
			    o->flows);
}

static const char *
mac_str(const uint8_t *m, char *buf)
{
	sprintf(buf, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
	return buf;
}

static const char *
ip_str(uint32_t ip, char *buf)
{
	sprintf(buf, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xff, (ip >> 8) & 0xff, ip & 0xff);
	return buf;
}

static void
request_stop(struct gen *g, int reason)
{
	int none = STOP_NONE;

	atomic_compare_exchange_strong(&g->stop, &none, reason);
}

static void
on_stop_signo(int sig)
{
	(void)sig;	/* only there to cut a BPF_PROG_RUN call short */
}

static int
run_live(struct worker *w)
{
	struct gen *g = w->g;

	while (!atomic_load(&g->stop)) {
		uint64_t n = MAX_CALL;
		uint32_t ns;
		int ret;

		if (g->o.count) {
			uint64_t done;

			/* The program's counter: exact even after a call cut short. */
			ret = gen_live_thread_built(g->live, w->index, &done);
			if (ret < 0)
				return ret;
			if (done >= w->share)
				break;
			if (w->share - done < n)
				n = w->share - done;
		}
		ret = gen_live_run(g->live, g->ifc.ifindex, w->frame, g->o.size, (uint32_t)n,
				   g->o.batch, &ns);
		if (ret == 0) {
			w->timed_ns += (double)ns * (double)n;
			w->timed_frames += n;
		} else if (ret != -EINTR) {
			return ret;
		}
	}
	return 0;
}

static int
run_packet(struct worker *w)
{
	struct gen *g = w->g;
	uint64_t left = g->o.count ? w->share : UINT64_MAX;

	while (left && !atomic_load(&g->stop)) {
		uint64_t sent = 0;
		int ret = gen_packet_send(&w->pkt, left < PACKET_CHUNK ? left : PACKET_CHUNK,
					  &g->stop, &sent);

		atomic_fetch_add(&w->sent, sent);
		left -= sent;
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int
run_afxdp(struct worker *w)
{
	struct gen *g = w->g;
	uint64_t sent = 0;

	/* Its share, drops sent again; or until told to stop.  Progress: gen_xsk_taken(). */
	return gen_xsk_send(&w->xsk, g->o.count ? w->share : UINT64_MAX, &g->stop, &sent);
}

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	struct gen *g = w->g;

	if (w->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		/* Failure leaves the thread unpinned; the header said where it should run. */
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	pthread_mutex_lock(&g->gate_lock);
	while (!g->gate_open)
		pthread_cond_wait(&g->gate_cond, &g->gate_lock);
	pthread_mutex_unlock(&g->gate_lock);

	w->err = g->method == METHOD_PACKET ? run_packet(w) :
		 g->method == METHOD_AFXDP ? run_afxdp(w) : run_live(w);
	if (w->err)
		request_stop(g, STOP_ERROR);
	w->t_end = now_ns();
	atomic_store(&w->finished, true);
	return NULL;
}

/*
 * What has left so far: built by the program (or accepted by the AF_PACKET
 * socket, or completed by the kernel from the AF_XDP rings), and taken or
 * dropped by the peer.
 */
struct tally {
	uint64_t built;
	uint64_t taken;			/* AF_XDP: built less the drops sendto() reported */
	uint64_t xmit, dropped;		/* since the start; valid when have_stats */
};

/* The veth's counters of the method: xdp_xmit for live frames, tx for AF_XDP. */
static int
read_counters(const struct gen *g, uint64_t *xmit, uint64_t *dropped)
{
	if (g->method == METHOD_AFXDP)
		return gen_iface_tx_stats(&g->ifc, xmit, dropped);
	return gen_iface_xdp_xmit(&g->ifc, xmit, dropped);
}

static void
read_tally(struct gen *g, struct tally *t)
{
	memset(t, 0, sizeof(*t));
	if (g->method == METHOD_PACKET) {
		for (unsigned int i = 0; i < g->o.threads; i++)
			t->built += atomic_load(&g->workers[i].sent);
	} else if (g->method == METHOD_AFXDP) {
		for (unsigned int i = 0; i < g->o.threads; i++) {
			t->built += atomic_load(&g->workers[i].xsk.built);
			t->taken += gen_xsk_taken(&g->workers[i].xsk);
		}
	} else {
		gen_live_built(g->live, g->o.threads, &t->built);
	}
	if (g->have_stats && read_counters(g, &t->xmit, &t->dropped) == 0) {
		t->xmit -= g->xmit0;
		t->dropped -= g->drop0;
	}
}

/* Frames sent: into the peer's ring where the veth counts them, else built/accepted/taken. */
static uint64_t
tally_sent(const struct gen *g, const struct tally *t)
{
	if (g->have_stats)
		return t->xmit;
	return g->method == METHOD_AFXDP ? t->taken : t->built;
}

/*
 * AF_XDP, once the threads have stopped: the peer's NAPI counts a frame when
 * it takes it off its ring, a little after sendto() put it there, and the
 * frame completes when the peer frees it, a little later still.  Takes the
 * last completions until the veth's counters and the completions agree (or
 * a second has passed).
 */
static void
settle(struct gen *g, struct tally *t)
{
	uint64_t until = now_ns() + XSK_SETTLE_NS;

	for (;;) {
		if (g->method == METHOD_AFXDP)
			for (unsigned int i = 0; i < g->o.threads; i++)
				gen_xsk_reap(&g->workers[i].xsk);
		read_tally(g, t);
		if (g->method != METHOD_AFXDP || !g->have_stats || t->xmit + t->dropped == t->built ||
		    now_ns() >= until)
			return;
		usleep(1000);
	}
}

/*
 * The peer takes no redirected frame: the veth drops them without counting.
 * While calls run, up to a batch of built frames may wait for the flush.
 */
static bool
peer_refuses(const struct gen *g, const struct tally *t, bool calls_done)
{
	return g->method == METHOD_LIVE && g->have_stats &&
	       t->built >= (calls_done ? 1 : 2 * MAX_BATCH) &&
	       t->xmit + t->dropped == 0;
}

static void
explain_refusal(const struct gen *g)
{
	fprintf(stderr,
		"afxdp-gen: %s's peer%s%s takes no XDP frame: none of the frames built was counted by\n"
		"the veth.  A veth takes redirected frames only when its peer has NAPI on: attach an XDP\n"
		"program to the peer (any, even one that passes everything) or enable GRO on it\n"
		"(ethtool -K <peer> gro on).  The peer must also be up.\n",
		g->ifc.name, g->ifc.has_peer ? " " : "", g->ifc.has_peer ? g->ifc.peer_name : "");
}

/*
 * Sends n more frames out of the first thread's template (live frames) or
 * socket (AF_XDP), from this thread.  0, -EINTR (cut short by a signal), or
 * a negative errno, said.
 */
static int
send_more(struct gen *g, uint64_t n)
{
	int ret;

	if (g->method == METHOD_AFXDP) {
		uint64_t sent = 0;

		ret = gen_xsk_send(&g->workers[0].xsk, n, &g->stop, &sent);
		if (ret < 0)
			fprintf(stderr, "afxdp-gen: sendto: %s\n", strerror(-ret));
		return ret;
	}
	ret = gen_live_run(g->live, g->ifc.ifindex, g->workers[0].frame, g->o.size,
			   (uint32_t)n, g->o.batch, &(uint32_t){ 0 });
	if (ret < 0 && ret != -EINTR)
		fprintf(stderr, "afxdp-gen: BPF_PROG_RUN: %s\n", strerror(-ret));
	return ret;
}

/*
 * --count with live frames or AF_XDP: frames the peer's full ring dropped
 * (or calls a signal cut short) are sent again, from this thread, until the
 * veth has taken exactly the count.  Returns the number of frames built
 * again.  (The AF_XDP threads send their drops again themselves: this only
 * runs there if the veth counted fewer than they did.)
 */
static int
top_up(struct gen *g, uint64_t *resent, unsigned int *rounds)
{
	struct tally t;

	*resent = 0;
	*rounds = 0;
	settle(g, &t);
	while (tally_sent(g, &t) < g->o.count) {
		uint64_t before = tally_sent(g, &t);
		uint64_t n = g->o.count - before;
		int ret;

		if (atomic_load(&g->stop) == STOP_SIGNAL)
			return 0;
		if (*rounds == MAX_TOPUP_ROUNDS) {
			fprintf(stderr, "afxdp-gen: %" PRIu64 " frames short after %u rounds of re-sending\n",
				n, *rounds);
			return -EIO;
		}
		if (*rounds)
			usleep(1000);	/* let the peer's NAPI drain its ring */
		if (n > MAX_CALL)
			n = MAX_CALL;
		ret = send_more(g, n);
		if (ret < 0 && ret != -EINTR)
			return ret;
		*resent += n;
		(*rounds)++;
		settle(g, &t);
		if (peer_refuses(g, &t, true) || (tally_sent(g, &t) == before && ret != -EINTR)) {
			fprintf(stderr, "afxdp-gen: re-sending %" PRIu64 " frames delivered none\n", n);
			return -EIO;
		}
	}
	if (tally_sent(g, &t) > g->o.count)
		fprintf(stderr, "afxdp-gen: the veth counted %" PRIu64 " frames, %" PRIu64
			" more than asked: someone else redirects into %s's peer\n",
			tally_sent(g, &t), tally_sent(g, &t) - g->o.count, g->ifc.name);
	return 0;
}

/*
 * A veth takes a redirected frame into the receive queue cpu % queues of
 * its peer: do the pinned threads each have a queue of their own?
 */
static bool
threads_own_queues(const struct gen *g)
{
	unsigned int q = g->ifc.peer_rx_queues;

	if (!g->o.n_cpus || !q)
		return false;
	for (unsigned int i = 0; i < g->o.threads; i++)
		for (unsigned int j = 0; j < i; j++)
			if (g->workers[i].cpu % q == g->workers[j].cpu % q)
				return false;
	return true;
}

static void
print_header(const struct gen *g)
{
	char b1[32], b2[32], b3[32];
	const struct opts *o = &g->o;

	if (g->method == METHOD_PACKET)
		printf("afxdp-gen: method AF_PACKET sendmmsg + PACKET_QDISC_BYPASS (fallback: slower)\n");
	else if (g->method == METHOD_AFXDP)
		printf("afxdp-gen: method AF_XDP copy mode (XDP_COPY, a socket and UMEM per thread), "
		       "%u frames per sendto(), the kernel sends %u per call (fallback: slower than live frames)\n",
		       o->batch, g->workers[0].xsk.budget);
	else
		printf("afxdp-gen: method live frames (BPF_PROG_RUN + BPF_F_TEST_XDP_LIVE_FRAMES, %s), batch %u\n",
		       o->dry_run ? "XDP_DROP: dry run, nothing is sent" : "XDP_TX", o->batch);
	if (g->why_not_live[0])
		printf("  not      live frames: %s\n", g->why_not_live);
	if (g->why_not_afxdp[0])
		printf("  not      AF_XDP: %s\n", g->why_not_afxdp);
	printf("  out of   %s (ifindex %d, mtu %u%s%s)\n", g->ifc.name, g->ifc.ifindex, g->ifc.mtu,
	       g->ifc.kind[0] ? ", " : "", g->ifc.kind);
	if (g->ifc.has_peer) {
		char ns[32] = "this namespace";

		if (g->ifc.peer_netnsid >= 0)
			snprintf(ns, sizeof(ns), "netns id %d", g->ifc.peer_netnsid);
		printf("  peer     %s (%s, mtu %u, %u rx queue%s, %s)\n", g->ifc.peer_name, ns,
		       g->ifc.peer_mtu, g->ifc.peer_rx_queues, g->ifc.peer_rx_queues == 1 ? "" : "s",
		       g->ifc.peer_xdp ? "XDP program attached" : "no XDP program");
	}
	printf("  frames   %u bytes (no FCS), %s:%u -> %s:%u, %u flow%s\n", o->size,
	       ip_str(o->src_ip, b1), o->src_port, ip_str(o->dst_ip, b2), o->dst_port,
	       o->flows, o->flows == 1 ? "" : "s");
	printf("  macs     %s -> %s (%s)\n", mac_str(g->spec.src_mac, b1), mac_str(g->spec.dst_mac, b3),
	       o->dst_mac_set ? "--dst-mac" :
	       g->ifc.has_peer ? "the peer's" : "broadcast: the peer's MAC is unknown");
	printf("  threads  %u", o->threads);
	if (o->n_cpus) {
		printf(" on cpu");
		for (unsigned int i = 0; i < o->threads; i++)
			printf("%s%d", i ? "," : " ", g->workers[i].cpu);
	}
	if (g->method == METHOD_AFXDP) {
		printf(", into %s's queue", g->ifc.name);
		for (unsigned int i = 0; i < o->threads; i++)
			printf("%s%u", i ? "," : " ", g->workers[i].xsk.queue);
	}
	printf("\n");
	if (o->count)
		printf("  until    %" PRIu64 " frames are sent\n", o->count);
	else if (o->duration > 0)
		printf("  until    %.3f s have passed\n", o->duration);
	else
		printf("  until    Ctrl-C\n");
	if (g->shared_queue)
		printf("  note     threads may share one of the peer's %u receive queue%s (queue = cpu %% %u):\n"
		       "           the veth updates its counters there without a lock, so counts may be off\n"
		       "           and the ring drops more; give each thread its own queue with --cpus\n",
		       g->ifc.peer_rx_queues, g->ifc.peer_rx_queues == 1 ? "" : "s", g->ifc.peer_rx_queues);
	if (g->method == METHOD_PACKET)
		printf("  sent     = accepted by %s's driver (refused ones are sent again)\n", g->ifc.name);
	else if (g->method == METHOD_AFXDP && g->have_stats)
		printf("  sent     = taken by the peer (the veth's tx_packets; frames it dropped are sent again)\n");
	else if (g->method == METHOD_AFXDP)
		printf("  sent     = taken by %s's driver (dropped ones are sent again); not verifiable:\n"
		       "           not a veth\n", g->ifc.name);
	else if (g->have_stats)
		printf("  sent     = taken into the peer's receive ring (the veth's xdp_xmit counters)\n");
	else if (!o->dry_run)
		printf("  sent     = built by the program: %s has no veth xdp_xmit counters to tell delivery\n",
		       g->ifc.name);
	fflush(stdout);
}

static void
print_progress(const struct gen *g, double secs, const struct tally *t, const struct tally *last,
	       double dt)
{
	double pps = (double)(tally_sent(g, t) - tally_sent(g, last)) / dt;

	printf("%7.1f s  %8.3f Mpps  %8.3f Gbit/s  sent %" PRIu64, secs, pps / 1e6,
	       pps * g->o.size * 8 / 1e9, tally_sent(g, t));
	if (g->have_stats && g->method != METHOD_PACKET)
		printf("  dropped %" PRIu64, t->dropped);
	printf("\n");
	fflush(stdout);
}

static unsigned int
running(struct gen *g)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < g->o.threads; i++)
		n += !atomic_load(&g->workers[i].finished);
	return n;
}

/* Cuts the running threads' calls short. */
static void
kick(struct gen *g)
{
	for (unsigned int i = 0; i < g->o.threads; i++)
		if (!atomic_load(&g->workers[i].finished))
			pthread_kill(g->workers[i].tid, STOP_SIGNO);
}

/*
 * Until the threads are done: a progress line a second, the deadline, and
 * the stop.  A thread between two calls when kicked misses the signal, so
 * the kick is repeated until all have left.
 */
static void
watch(struct gen *g)
{
	struct tally last = { 0 }, t;
	uint64_t tick = g->t_start + 1000000000ull, last_ns = g->t_start;

	while (running(g)) {
		uint64_t now = now_ns(), wake;
		struct timespec ts;

		if (g->deadline && now >= g->deadline)
			request_stop(g, STOP_DONE);
		if (atomic_load(&g->stop)) {
			if (!g->t_stop)
				g->t_stop = now;
			kick(g);
		}
		if (now >= tick) {
			read_tally(g, &t);
			if (peer_refuses(g, &t, false)) {
				explain_refusal(g);
				request_stop(g, STOP_ERROR);
			}
			if (!g->o.quiet)
				print_progress(g, (double)(now - g->t_start) / 1e9, &t, &last,
					       (double)(now - last_ns) / 1e9);
			last = t;
			last_ns = now;
			tick += 1000000000ull;
		}
		/* Wake at the tick, the deadline, or in 20 ms when stopping. */
		wake = tick;
		if (g->deadline && g->deadline > now && g->deadline < wake)
			wake = g->deadline;
		if (atomic_load(&g->stop) || now + 20000000ull < wake)
			wake = now + 20000000ull;
		ts.tv_sec = (time_t)(wake / 1000000000ull);
		ts.tv_nsec = (long)(wake % 1000000000ull);
		/* A signal cuts it short; so does a thread's end, within 20 ms. */
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

static int
libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/* The workers and their templates; no method's socket yet. */
static int
setup_workers(struct gen *g)
{
	g->workers = calloc(g->o.threads, sizeof(*g->workers));
	if (!g->workers)
		return -ENOMEM;
	for (unsigned int i = 0; i < g->o.threads; i++) {
		g->workers[i].pkt.fd = -1;
		g->workers[i].xsk.fd = -1;
	}
	for (unsigned int i = 0; i < g->o.threads; i++) {
		struct worker *w = &g->workers[i];

		w->g = g;
		w->index = i;
		w->cpu = g->o.n_cpus ? g->o.cpus[i % g->o.n_cpus] : -1;
		w->frame = malloc(g->o.size);
		if (!w->frame)
			return -ENOMEM;
		gen_frame_build(w->frame, &g->spec, i);
	}
	return 0;
}

static void
close_afxdp(struct gen *g)
{
	for (unsigned int i = 0; i < g->o.threads; i++)
		gen_xsk_close(&g->workers[i].xsk);
}

/* An AF_XDP socket per thread, thread i on transmit queue i.  0, or -errno and why. */
static int
open_afxdp(struct gen *g, char *why, size_t whylen)
{
	char err[256];

	if (g->ifc.tx_queues && g->o.threads > g->ifc.tx_queues) {
		snprintf(why, whylen, "a socket per thread needs a transmit queue per thread: "
			 "%s has %u, for %u threads", g->ifc.name, g->ifc.tx_queues, g->o.threads);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < g->o.threads; i++) {
		struct worker *w = &g->workers[i];
		int ret = gen_xsk_open(&w->xsk, g->ifc.ifindex, i, w->frame, g->o.size, &g->cfg,
				       g->o.batch, err, sizeof(err));

		if (ret < 0) {
			snprintf(why, whylen, "%s", err);
			close_afxdp(g);
			return ret;
		}
	}
	return 0;
}

static int
open_packet(struct gen *g)
{
	char err[256];

	for (unsigned int i = 0; i < g->o.threads; i++) {
		struct worker *w = &g->workers[i];
		int ret = gen_packet_open(&w->pkt, g->ifc.ifindex, w->frame, g->o.size, &g->cfg,
					  err, sizeof(err));

		if (ret < 0) {
			fprintf(stderr, "afxdp-gen: %s\n", err);
			return ret;
		}
	}
	return 0;
}

/*
 * The method: the one asked for, or with auto the first that works when
 * done once: live frames (a program run in live mode), then AF_XDP (every
 * thread's socket bound), then AF_PACKET.  Why each one before was not
 * taken is kept for the header, the summary and the JSON.
 */
static int
setup_method(struct gen *g)
{
	bool any = g->method == METHOD_AUTO;
	int ret;

	if (g->method == METHOD_LIVE || any) {
		ret = gen_live_open(&g->live, &g->cfg, g->why_not_live, sizeof(g->why_not_live));
		if (ret == 0) {
			g->why_not_live[0] = '\0';
			g->method = METHOD_LIVE;
			return 0;
		}
		if (!any) {
			fprintf(stderr, "afxdp-gen: %s\n", g->why_not_live);
			return ret;
		}
		fprintf(stderr, "afxdp-gen: live frames unavailable: %s\n"
			"afxdp-gen: trying AF_XDP sockets in copy mode (slower)\n", g->why_not_live);
	}
	if (g->method == METHOD_AFXDP || any) {
		ret = open_afxdp(g, g->why_not_afxdp, sizeof(g->why_not_afxdp));
		if (ret == 0) {
			g->why_not_afxdp[0] = '\0';
			g->method = METHOD_AFXDP;
			return 0;
		}
		if (!any) {
			fprintf(stderr, "afxdp-gen: %s\n", g->why_not_afxdp);
			if (ret == -EMSGSIZE)
				fprintf(stderr, "afxdp-gen: use --method packet for such frames\n");
			return ret;
		}
		fprintf(stderr, "afxdp-gen: AF_XDP unavailable: %s\n"
			"afxdp-gen: falling back to AF_PACKET sendmmsg (slower still)\n", g->why_not_afxdp);
	}
	g->method = METHOD_PACKET;
	return open_packet(g);
}

static void
teardown(struct gen *g)
{
	if (g->workers) {
		for (unsigned int i = 0; i < g->o.threads; i++) {
			if (g->workers[i].pkt.fd >= 0 || g->workers[i].pkt.frames)
				gen_packet_close(&g->workers[i].pkt);
			gen_xsk_close(&g->workers[i].xsk);
			free(g->workers[i].frame);
		}
		free(g->workers);
	}
	gen_live_close(g->live);
	gen_iface_close(&g->ifc);
}

/* "key":"value" with the value escaped as JSON wants; first: no comma before. */
static void
print_json_pair(const char *key, const char *value, bool first)
{
	printf("%s\"%s\":\"", first ? "" : ",", key);
	for (const unsigned char *c = (const unsigned char *)value; *c; c++) {
		if (*c == '"' || *c == '\\')
			printf("\\%c", *c);
		else if (*c < 0x20)
			printf("\\u%04x", *c);
		else
			putchar(*c);
	}
	putchar('"');
}

static const char *
stop_name(int reason, const struct opts *o)
{
	switch (reason) {
	case STOP_SIGNAL:
		return "interrupted";
	case STOP_ERROR:
		return "error";
	default:
		return o->count ? "count" : "duration";
	}
}

int
main(int argc, char **argv)
{
	static struct gen gen;
	struct gen *g = &gen;
	struct sigaction sa;
	sigset_t block, old;
	char err[256];
	struct tally t;
	uint64_t resent = 0, t_end, sent;
	unsigned int rounds = 0, started = 0;
	int ret, status = 0, reason;
	bool verified;
	double timed_ns = 0, ns_per_frame = 0;
	uint64_t timed_frames = 0;
	char ns_str[32] = "null";
	double secs, pps;

	parse_opts(&g->o, argc, argv);
	g->method = g->o.method;
	libbpf_set_print(libbpf_print);

	ret = gen_iface_open(&g->ifc, g->o.dev, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "afxdp-gen: --dev %s: %s\n", g->o.dev, err);
		return ret == -ENODEV || ret == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	if (g->o.size > g->ifc.mtu + 14) {
		fprintf(stderr, "afxdp-gen: --size %u: %s takes frames of %u to %u bytes (MTU %u + 14)\n",
			g->o.size, g->ifc.name, GEN_MIN_FRAME, g->ifc.mtu + 14, g->ifc.mtu);
		teardown(g);
		return EXIT_USAGE;
	}
	if (g->ifc.has_peer && g->o.size > g->ifc.peer_mtu + 14 + 4)
		fprintf(stderr, "afxdp-gen: warning: the peer %s (MTU %u) drops frames over %u bytes\n",
			g->ifc.peer_name, g->ifc.peer_mtu, g->ifc.peer_mtu + 18);

	g->spec.size = g->o.size;
	g->spec.flows = g->o.flows;
	g->spec.src_ip = g->o.src_ip;
	g->spec.dst_ip = g->o.dst_ip;
	g->spec.src_port = g->o.src_port;
	g->spec.dst_port = g->o.dst_port;
	memcpy(g->spec.src_mac, g->o.src_mac_set ? g->o.src_mac : g->ifc.mac, ETH_ALEN_);
	if (g->o.dst_mac_set)
		memcpy(g->spec.dst_mac, g->o.dst_mac, ETH_ALEN_);
	else if (g->ifc.has_peer)
		memcpy(g->spec.dst_mac, g->ifc.peer_mac, ETH_ALEN_);
	else
		memset(g->spec.dst_mac, 0xff, ETH_ALEN_);
	gen_frame_cfg(&g->cfg, &g->spec);
	g->cfg.dry_run = g->o.dry_run;

	ret = setup_workers(g);
	if (ret == 0)
		ret = setup_method(g);
	if (ret < 0) {
		teardown(g);
		return EXIT_RUNTIME;
	}
	/* Frames redirected into a veth's peer are counted there; AF_PACKET's go another way. */
	/*
	 * Frames redirected into a veth's peer are counted there; AF_XDP's
	 * frames in the veth's transmit counters; AF_PACKET's go another way.
	 */
	g->have_stats = ((g->method == METHOD_LIVE && !g->o.dry_run) ||
			 (g->method == METHOD_AFXDP && g->ifc.has_peer)) &&
			read_counters(g, &g->xmit0, &g->drop0) == 0;
	g->shared_queue = g->method == METHOD_LIVE && g->have_stats && g->o.threads > 1 &&
			  !threads_own_queues(g);
	if (!g->o.quiet)
		print_header(g);

	for (unsigned int i = 0; i < g->o.threads; i++)
		g->workers[i].share = g->o.count / g->o.threads + (i < g->o.count % g->o.threads);
	signal_stop = &g->stop;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESETHAND;	/* a second Ctrl-C kills */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* No SA_RESTART: the signal is there to end a call with EINTR. */
	sa.sa_handler = on_stop_signo;
	sa.sa_flags = 0;
	sigaction(STOP_SIGNO, &sa, NULL);

	/* The threads never see the signals: this one does, and tells them. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	pthread_mutex_init(&g->gate_lock, NULL);
	pthread_cond_init(&g->gate_cond, NULL);
	for (; started < g->o.threads; started++) {
		ret = pthread_create(&g->workers[started].tid, NULL, worker_main, &g->workers[started]);
		if (ret) {
			fprintf(stderr, "afxdp-gen: cannot start thread %u: %s\n", started, strerror(ret));
			/* those started leave at once; the others never run */
			request_stop(g, STOP_ERROR);
			for (unsigned int i = started; i < g->o.threads; i++)
				atomic_store(&g->workers[i].finished, true);
			break;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	g->t_start = now_ns();
	if (g->o.duration > 0)
		g->deadline = g->t_start + (uint64_t)(g->o.duration * 1e9);
	pthread_mutex_lock(&g->gate_lock);
	g->gate_open = true;
	pthread_cond_broadcast(&g->gate_cond);
	pthread_mutex_unlock(&g->gate_lock);
	watch(g);
	for (unsigned int i = 0; i < started; i++)
		pthread_join(g->workers[i].tid, NULL);

	reason = atomic_load(&g->stop);
	for (unsigned int i = 0; i < started; i++)
		if (g->workers[i].err) {
			fprintf(stderr, "afxdp-gen: thread %u: %s: %s\n", i,
				g->method == METHOD_LIVE ? "BPF_PROG_RUN" :
				g->method == METHOD_AFXDP ? "sendto" : "sendmmsg",
				strerror(-g->workers[i].err));
			if (g->workers[i].err == -ENOLINK)
				fprintf(stderr, "afxdp-gen: %s took no frame for %.0f s, each one dropped or "
					"given back: is it up, with a carrier (a veth: its peer up)?\n",
					g->ifc.name, GEN_STALL_NS / 1e9);
			if (g->workers[i].err == -EINVAL && g->o.size > 3000 && g->method == METHOD_LIVE)
				fprintf(stderr, "afxdp-gen: live frames must fit in a page with the kernel's "
					"headroom (about 3.3 KB): use --method packet\n");
			status = EXIT_RUNTIME;
		}
	if (status == 0 && reason != STOP_SIGNAL && g->o.count &&
	    (g->method == METHOD_LIVE || g->method == METHOD_AFXDP)) {
		read_tally(g, &t);
		if (peer_refuses(g, &t, true)) {
			explain_refusal(g);
			status = EXIT_RUNTIME;
		} else if (top_up(g, &resent, &rounds) < 0) {
			status = EXIT_RUNTIME;
		}
	}
	/*
	 * The run ends when the last call does, top-up included; or when it
	 * was told to stop, as calls cut short take a while to tear down.
	 */
	t_end = rounds ? now_ns() : g->t_start;
	for (unsigned int i = 0; i < started; i++)
		if (g->workers[i].t_end > t_end)
			t_end = g->workers[i].t_end;
	if (g->t_stop && g->t_stop < t_end && (reason == STOP_DONE || reason == STOP_SIGNAL))
		t_end = g->t_stop;
	settle(g, &t);
	if (status == 0 && peer_refuses(g, &t, true)) {
		explain_refusal(g);
		status = EXIT_RUNTIME;
	}
	if (status == 0 && reason == STOP_ERROR)
		status = EXIT_RUNTIME;
	if (status && reason != STOP_SIGNAL)
		reason = STOP_ERROR;

	/* Every frame built was either taken or dropped by the veth, unless its counters lost updates. */
	verified = g->have_stats || g->method == METHOD_PACKET;
	if (g->method == METHOD_AFXDP && g->have_stats &&
	    (t.xmit != t.taken || t.xmit + t.dropped != t.built)) {
		fprintf(stderr, "afxdp-gen: warning: the kernel completed %" PRIu64 " frames from the AF_XDP rings, "
			"of which sendto() said %" PRIu64 " were dropped, but the veth counted %" PRIu64
			" taken and %" PRIu64 " dropped: someone else sends out of %s, or frames were "
			"lost uncounted\n", t.built, t.built - t.taken, t.xmit, t.dropped, g->ifc.name);
		verified = false;
	} else if (g->method == METHOD_LIVE && g->have_stats && t.xmit + t.dropped &&
		   t.built != t.xmit + t.dropped) {
		fprintf(stderr, "afxdp-gen: warning: the program built %" PRIu64 " frames but the veth counted %"
			PRIu64 " (%" PRIu64 " taken + %" PRIu64 " dropped): %s\n", t.built,
			t.xmit + t.dropped, t.xmit, t.dropped,
			g->shared_queue ? "threads sharing a peer queue race on its counters" :
			"someone else redirects into the same peer, or frames were lost uncounted");
		verified = false;
	}
	for (unsigned int i = 0; i < started; i++) {
		timed_ns += g->workers[i].timed_ns;
		timed_frames += g->workers[i].timed_frames;
	}
	if (timed_frames)
		ns_per_frame = timed_ns / (double)timed_frames;
	sent = tally_sent(g, &t);
	secs = (double)(t_end - g->t_start) / 1e9;
	pps = secs > 0 ? (double)sent / secs : 0;
	if (!g->o.quiet || !g->o.json) {
		printf("afxdp-gen: stopped (%s): sent %" PRIu64 " frames in %.3f s: %.3f Mpps, %.3f Gbit/s"
		       " (%u-byte frames, FCS excluded)\n", stop_name(reason, &g->o), sent, secs,
		       pps / 1e6, pps * g->o.size * 8 / 1e9, g->o.size);
		if (g->method == METHOD_PACKET) {
			uint64_t retries = 0;

			for (unsigned int i = 0; i < g->o.threads; i++)
				retries += g->workers[i].pkt.retries;
			printf("  AF_PACKET: every frame accepted by %s; %" PRIu64
			       " sendmmsg calls met a full queue and were retried\n", g->ifc.name, retries);
		} else if (g->method == METHOD_AFXDP) {
			uint64_t kicks = 0, again = 0;

			for (unsigned int i = 0; i < g->o.threads; i++) {
				kicks += g->workers[i].xsk.kicks;
				again += g->workers[i].xsk.again;
			}
			if (g->have_stats)
				printf("  AF_XDP: taken by the peer %" PRIu64 " (the veth's tx_packets), dropped at "
				       "a full ring %" PRIu64 " and sent again, completed %" PRIu64,
				       t.xmit, t.dropped, t.built);
			else
				printf("  AF_XDP: taken by %s's driver %" PRIu64 ", dropped %" PRIu64 " and sent "
				       "again (not verifiable: not a veth)", g->ifc.name, t.taken,
				       t.built - t.taken);
			if (rounds)
				printf(", re-sent %" PRIu64 " in %u round%s", resent, rounds,
				       rounds == 1 ? "" : "s");
			printf("\n  %" PRIu64 " sendto() calls, %" PRIu64 " of them said EAGAIN (budget spent "
			       "or device busy)\n", kicks, again);
		} else if (g->have_stats) {
			printf("  into the peer's ring %" PRIu64 ", dropped at a full ring %" PRIu64
			       ", built by the program %" PRIu64, t.xmit, t.dropped, t.built);
			if (rounds)
				printf(", re-sent %" PRIu64 " in %u round%s", resent, rounds,
				       rounds == 1 ? "" : "s");
			printf("\n");
		} else if (g->o.dry_run) {
			printf("  dry run: %" PRIu64 " frames built and dropped in the kernel\n", t.built);
		} else {
			printf("  built by the program %" PRIu64 " (delivery not verifiable on %s)\n",
			       t.built, g->ifc.name);
		}
		if (g->o.count && sent != g->o.count)
			printf("  %" PRIu64 " of the %" PRIu64 " frames asked for\n", sent, g->o.count);
		if (g->why_not_live[0])
			printf("  method   %s; live frames not taken: %s\n", method_json[g->method],
			       g->why_not_live);
		if (g->why_not_afxdp[0])
			printf("  method   %s; AF_XDP not taken: %s\n", method_json[g->method],
			       g->why_not_afxdp);
		if (ns_per_frame > 0)
			printf("  kernel-timed: %.0f ns per frame and thread, on the CPU (%.3f Mpps a thread "
			       "if never scheduled out), over %" PRIu64 " frames\n", ns_per_frame,
			       1e3 / ns_per_frame, timed_frames);
	}
	if (ns_per_frame > 0)
		snprintf(ns_str, sizeof(ns_str), "%.1f", ns_per_frame);
	if (g->method == METHOD_AFXDP) {
		/* The threads sent each frame dropped again; without the veth's counters, sendto() told the drops. */
		resent += t.built - t.taken;
		if (!g->have_stats)
			t.dropped = t.built - t.taken;
	}
	if (g->o.json) {
		printf("{\"method\":\"%s\",\"dev\":\"%s\",\"size\":%u,\"threads\":%u,\"flows\":%u,"
		       "\"sent\":%" PRIu64 ",\"built\":%" PRIu64 ",\"dropped\":%" PRIu64 ",\"resent\":%" PRIu64
		       ",\"verified\":%s,\"dry_run\":%s,\"seconds\":%.6f,\"pps\":%.0f,\"bps\":%.0f,"
		       "\"ns_per_frame\":%s,\"stopped\":\"%s\",\"not_taken\":{",
		       method_json[g->method], g->ifc.name, g->o.size,
		       g->o.threads, g->o.flows, sent, t.built, t.dropped, resent,
		       verified ? "true" : "false",
		       g->o.dry_run ? "true" : "false", secs, pps,
		       pps * g->o.size * 8, ns_str, stop_name(reason, &g->o));
		if (g->why_not_live[0])
			print_json_pair("live", g->why_not_live, true);
		if (g->why_not_afxdp[0])
			print_json_pair("afxdp", g->why_not_afxdp, !g->why_not_live[0]);
		printf("}}\n");
	}
	if (status == 0 && g->o.count && sent != g->o.count && reason != STOP_SIGNAL)
		status = EXIT_RUNTIME;
	teardown(g);
	return status;
}
