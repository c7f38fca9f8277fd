/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The af_xdp_direct authors
 */

/*
 * afxdp_intr_test: a DPDK application that sleeps on its Rx queues'
 * interrupts, as l3fwd-power does, for tests/integration/test_rx_intr.py.
 *
 *   afxdp_intr_test <EAL args> -- [--queues N] [--pmgmt-monitor] [--mtu N]
 *
 * Port 0, N Rx and Tx queues, intr_conf.rxq = 1.  Each queue's event fd is
 * registered in the main lcore's epoll set (rte_eth_dev_rx_intr_ctl_q,
 * RTE_EPOLL_PER_THREAD), and so is stdin, where the test's commands come
 * from.  The loop: receive until every queue is empty, arm every queue,
 * sleep in rte_epoll_wait(), disarm.  Frames are counted and freed.
 *
 * Commands (a line each on stdin; each answer a line on stdout):
 *   stats     STATS rx=<frames> test=<of ethertype 0x88b5> multi_seg=<of
 *             several mbufs> q=<per queue,...>
 *             wakeups=<queue events> empty_wakeups=<of them, with nothing to
 *             receive> cpu_us=<user+system time of the process>
 *   armwait   receive, arm, print ARMED, then wait (not in epoll) for a line
 *             on stdin (the test sends a frame first), then sleep:
 *             ARMWAIT woke=<0|1> ms=<time asleep> rx=<frames then taken>
 *   partial   receive, print PARTIAL_READY, wait for a line (the test sends
 *             frames first), then arm and sleep (at most 3 s) with frames
 *             in the ring; take one, arm and sleep again with the rest:
 *             PARTIAL woke=<0|1> ms=<time asleep> first=<frames>
 *             woke_again=<0|1> ms_again=<> rest=<frames>
 *   monitor   the power-management monitor condition of queue 0
 *             (rte_eth_get_monitor_addr): MONITOR ret=<> sleep=<0|1> with
 *             the ring empty, then wait for a line (a frame sent), then
 *             MONITOR_FRAME sleep=<0|1> rx=<frames taken> sleep_after=<0|1>
 *   restart   stop and start the port, registrations left as they are:
 *             RESTARTED ret=<>
 *   poll MS   poll without sleeping for MS ms: POLLED rx=<frames>
 *   quit      stop and close the port: BYE rx=<frames>
 *   latency N intr|poll PATH
 *             wake-up latency (bench/wakeup.py): take N timestamped frames
 *             (ethertype 0x88b6, sent by bench-wakeup from the peer
 *             namespace), sleeping on the Rx interrupt between them (intr)
 *             or polling (poll); per frame, a line in PATH: <seq> <ns from
 *             the sender's timestamp to the frame in hand> <ns from it to
 *             rte_epoll_wait()'s return, -1 when not woken by it>.
 *             Ends at N frames, or at a line on stdin (the sender is done;
 *             one that comes after the end is ignored):
 *             LATENCY n=<frames> sleeps=<> cpu_us=<user+system time spent>
 *
 * --mtu N: that MTU, with the Rx scatter offload (frames of several mbufs).
 *
 * --pmgmt-monitor: before start, ask the power library for its monitor
 * mode on every queue and say whether the CPU has what it needs
 * (PMGMT ret=<> power_monitor=<0|1>); where it works, the port is then
 * polled, the library sleeping between frames, and the commands other
 * than stats and quit are not available.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>

#include <rte_cpuflags.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_epoll.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_power_intrinsics.h>
#include <rte_version.h>
#ifdef HAVE_POWER_PMD_MGMT
#include <rte_power_pmd_mgmt.h>
#endif

#define MAX_QUEUES	8
#define BURST		32u
#define NB_DESC		1024
#define NB_MBUFS	8191
#define ETH_P_TEST	0x88B5
#define ETH_P_LATENCY	0x88B6	/* bench-wakeup's timestamped frames */
#define LATENCY_STDIN_EVERY	1024	/* polls between two looks at stdin */
#define STDIN_TAG	((void *)(uintptr_t)0x57D1)
#define PARTIAL_WAIT_MS	3000
#define ARMWAIT_MS	5000
/* What rte_power_monitor() needs of an x86 CPU: AMD's from DPDK 23.11 on. */
#if RTE_VERSION < RTE_VERSION_NUM(23, 11, 0, 0)
#define MONITOR_NEEDS	"WAITPKG (UMONITOR/UMWAIT; DPDK before 23.11 has no AMD MONITORX support)"
#else
#define MONITOR_NEEDS	"WAITPKG (UMONITOR/UMWAIT) or MONITORX (MONITORX/MWAITX)"
#endif

static uint16_t port;
static uint16_t nb_queues = 1;
static uint16_t mtu;		/* 0: the default */
static uint64_t rx_total, rx_test, rx_multi_seg, rx_queue[MAX_QUEUES];
static uint64_t wakeups, empty_wakeups;

/*
 * The latency command's record: set while it runs.  The timestamp in a
 * bench-wakeup frame is the sender's CLOCK_MONOTONIC, which the two
 * namespaces share; woke_ns is when rte_epoll_wait() last returned with a
 * queue event, 0 while frames are taken without having slept.  The run
 * ends at a count, or when the harness says the sender is done: not at a
 * quiet spell, which a machine that stops for a while makes by itself.
 */
/* Packed with the compiler's own attribute: DPDK 25.11 deprecates __rte_packed. */
struct latency_frame {
	uint32_t seq;
	uint64_t sent_ns;
} __attribute__((packed));

static struct {
	FILE *out;
	uint64_t frames, woke_ns;
} *latency;

static void
say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static __rte_noreturn void
fail(const char *what, int err)
{
	say("ERROR %s: %s", what, strerror(err < 0 ? -err : err));
	exit(1);
}

/* One line of stdin, unbuffered (epoll must see what is left to read). */
static bool
read_line(char *buf, size_t len)
{
	size_t n = 0;
	char c;

	while (n + 1 < len) {
		ssize_t r = read(0, &c, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return n != 0;
		if (c == '\n')
			break;
		buf[n++] = c;
	}
	buf[n] = '\0';
	return true;
}

static uint64_t
cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A bench-wakeup frame in hand at now_ns: its line in the latency record. */
static void
latency_record(const struct rte_mbuf *m, uint64_t now_ns)
{
	struct latency_frame f;
	const struct latency_frame *p;

	p = rte_pktmbuf_read(m, sizeof(struct rte_ether_hdr), sizeof(f), &f);
	if (p == NULL)
		return;
	/* A frame sent after the wakeup did not wake us: as if taken awake. */
	fprintf(latency->out, "%" PRIu32 " %" PRId64 " %" PRId64 "\n", p->seq,
		(int64_t)(now_ns - p->sent_ns),
		latency->woke_ns > p->sent_ns ? (int64_t)(latency->woke_ns - p->sent_ns) : -1);
	latency->frames++;
}

static uint64_t
now_ms(void)
{
	return rte_get_timer_cycles() * 1000 / rte_get_timer_hz();
}

/* At most max frames of queue q, counted and freed. */
static unsigned int
receive(uint16_t q, unsigned int max)
{
	struct rte_mbuf *bufs[BURST];
	unsigned int total = 0;

	while (total < max) {
		uint16_t i, n = rte_eth_rx_burst(port, q, bufs, (uint16_t)RTE_MIN(max - total, BURST));
		/* In hand now: the latency's end, read once per burst. */
		uint64_t in_hand_ns = latency != NULL && n != 0 ? mono_ns() : 0;

		for (i = 0; i < n; i++) {
			const struct rte_ether_hdr *eth =
				rte_pktmbuf_mtod(bufs[i], const struct rte_ether_hdr *);

			rx_test += eth->ether_type == rte_cpu_to_be_16(ETH_P_TEST);
			if (latency != NULL && eth->ether_type == rte_cpu_to_be_16(ETH_P_LATENCY))
				latency_record(bufs[i], in_hand_ns);
			rx_multi_seg += bufs[i]->nb_segs > 1;
			rte_pktmbuf_free(bufs[i]);
		}
		total += n;
		if (n == 0)
			break;
	}
	rx_total += total;
	rx_queue[q] += total;
	return total;
}

static unsigned int
receive_all(void)
{
	unsigned int total = 0, got;
	uint16_t q;

	do {
		got = 0;
		for (q = 0; q < nb_queues; q++)
			got += receive(q, UINT32_MAX);
		total += got;
	} while (got != 0);
	return total;
}

static void
arm(bool on)
{
	uint16_t q;
	int ret;

	for (q = 0; q < nb_queues; q++) {
		ret = on ? rte_eth_dev_rx_intr_enable(port, q) : rte_eth_dev_rx_intr_disable(port, q);
		if (ret != 0)
			fail(on ? "rte_eth_dev_rx_intr_enable" : "rte_eth_dev_rx_intr_disable", ret);
	}
}

/*
 * Sleep until a queue or stdin has something, or timeout_ms (-1: no end).
 * Returns the queue events; *command is set when stdin is readable.
 */
static int
sleep_on_events(int timeout_ms, bool *command)
{
	struct rte_epoll_event ev[MAX_QUEUES + 1];
	int i, n, queues = 0;

	n = rte_epoll_wait(RTE_EPOLL_PER_THREAD, ev, RTE_DIM(ev), timeout_ms);
	for (i = 0; i < n; i++) {
		if (ev[i].epdata.data == STDIN_TAG)
			*command = true;
		else
			queues++;
	}
	return queues;
}

static void
print_stats(void)
{
	char per_queue[MAX_QUEUES * 24] = "";
	size_t off = 0;
	uint16_t q;

	for (q = 0; q < nb_queues; q++)
		off += snprintf(per_queue + off, sizeof(per_queue) - off, "%s%" PRIu64,
				q == 0 ? "" : ",", rx_queue[q]);
	say("STATS rx=%" PRIu64 " test=%" PRIu64 " multi_seg=%" PRIu64 " q=%s wakeups=%" PRIu64
	    " empty_wakeups=%" PRIu64 " cpu_us=%" PRIu64,
	    rx_total, rx_test, rx_multi_seg, per_queue, wakeups, empty_wakeups, cpu_us());
}

/* A frame sent while the queue is armed and the thread not yet asleep. */
static void
cmd_armwait(void)
{
	char line[64];
	bool command = false;
	uint64_t t0;
	int woke;

	receive_all();
	arm(true);
	say("ARMED");
	read_line(line, sizeof(line));
	t0 = now_ms();
	woke = sleep_on_events(ARMWAIT_MS, &command);
	arm(false);
	say("ARMWAIT woke=%d ms=%" PRIu64 " rx=%u", woke > 0, now_ms() - t0, receive_all());
}

/*
 * Frames already in the ring when the queue is armed: the test sends them
 * while the thread neither polls nor sleeps, then says go.  The thread arms
 * and sleeps: woken at once, it takes one frame only and arms and sleeps
 * again with the rest in the ring: woken at once again.
 */
static void
sleep_with_frames_in_ring(unsigned int *woke, uint64_t *ms)
{
	bool command = false;
	uint64_t t0;

	arm(true);
	t0 = now_ms();
	*woke = sleep_on_events(PARTIAL_WAIT_MS, &command) > 0;
	*ms = now_ms() - t0;
	arm(false);
}

static void
cmd_partial(void)
{
	unsigned int woke1, woke2, first;
	uint64_t ms1, ms2;
	char line[64];

	receive_all();
	say("PARTIAL_READY");
	read_line(line, sizeof(line));
	sleep_with_frames_in_ring(&woke1, &ms1);
	first = receive(0, 1);
	sleep_with_frames_in_ring(&woke2, &ms2);
	say("PARTIAL woke=%u ms=%" PRIu64 " first=%u woke_again=%u ms_again=%" PRIu64
	    " rest=%u", woke1, ms1, first, woke2, ms2, receive_all());
}

static int
monitor_says_sleep(int *ret)
{
	struct rte_power_monitor_cond pmc;
	uint64_t value;

	memset(&pmc, 0, sizeof(pmc));
	*ret = rte_eth_get_monitor_addr(port, 0, &pmc);
	if (*ret != 0)
		return -1;
	if (pmc.size != sizeof(uint32_t) || pmc.fn == NULL || pmc.addr == NULL)
		return -2;
	value = __atomic_load_n((volatile uint32_t *)pmc.addr, __ATOMIC_ACQUIRE);
	return pmc.fn(value, pmc.opaque) == 0;
}

/*
 * The monitor condition as the power library uses it: taken with the ring
 * empty, it must say "sleep"; once a frame is in the ring, "wake".
 */
static void
cmd_monitor(void)
{
	struct rte_power_monitor_cond pmc;
	char line[64];
	uint64_t value;
	int ret, sleep_empty, sleep_frame, sleep_after;
	unsigned int got;

	receive_all();
	memset(&pmc, 0, sizeof(pmc));
	ret = rte_eth_get_monitor_addr(port, 0, &pmc);
	sleep_empty = ret == 0 ? pmc.fn(*(volatile uint32_t *)pmc.addr, pmc.opaque) == 0 : -1;
	say("MONITOR ret=%d size=%u sleep=%d", ret, pmc.size, sleep_empty);
	read_line(line, sizeof(line));
	/* The condition taken before the frame came, as the library holds it. */
	value = ret == 0 ? __atomic_load_n((volatile uint32_t *)pmc.addr, __ATOMIC_ACQUIRE) : 0;
	sleep_frame = ret == 0 ? pmc.fn(value, pmc.opaque) == 0 : -1;
	got = receive_all();
	sleep_after = monitor_says_sleep(&ret);
	say("MONITOR_FRAME sleep=%d rx=%u sleep_after=%d", sleep_frame, got, sleep_after);
}

/* Stop and start the port: the registrations must still hold (no ctl_q again). */
static void
cmd_restart(void)
{
	int ret = rte_eth_dev_stop(port);

	if (ret == 0)
		ret = rte_eth_dev_start(port);
	say("RESTARTED ret=%d", ret);
}

static void
cmd_poll(unsigned int ms)
{
	uint64_t end = now_ms() + ms;
	uint64_t before = rx_total;
	uint16_t q;

	while (now_ms() < end)
		for (q = 0; q < nb_queues; q++)
			receive(q, BURST);
	say("POLLED rx=%" PRIu64, rx_total - before);
}

/*
 * Wake-up latency: frames 1 ms apart (or whatever the sender does) taken
 * as an application would, asleep on the Rx interrupt between them or
 * polling.  A line on stdin ends it early.
 */
static void
cmd_latency(const char *args)
{
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	char mode[8] = "", path[256] = "", line[64];
	unsigned long want = 0;
	unsigned int i;
	uint64_t sleeps = 0, cpu0;
	bool intr, cmd = false;
	uint16_t q;

	if (sscanf(args, "%lu %7s %255s", &want, mode, path) != 3 || want == 0 ||
	    (strcmp(mode, "intr") != 0 && strcmp(mode, "poll") != 0)) {
		say("ERROR usage: latency N intr|poll PATH");
		return;
	}
	intr = strcmp(mode, "intr") == 0;
	receive_all();
	latency = calloc(1, sizeof(*latency));
	if (latency == NULL || (latency->out = fopen(path, "w")) == NULL) {
		say("ERROR latency: %s: %s", path, strerror(errno));
		free(latency);
		latency = NULL;
		return;
	}
	cpu0 = cpu_us();
	say("LATENCY_READY");
	while (latency->frames < want && !cmd) {
		if (!intr) {
			for (i = 0; i < LATENCY_STDIN_EVERY; i++)
				for (q = 0; q < nb_queues; q++)
					receive(q, BURST);
			cmd = poll(&pfd, 1, 0) > 0;
			continue;
		}
		latency->woke_ns = 0;
		receive_all();
		arm(true);
		if (sleep_on_events(-1, &cmd) > 0) {
			latency->woke_ns = mono_ns();
			sleeps++;
		}
		arm(false);
		receive_all();
	}
	if (cmd)
		read_line(line, sizeof(line));
	fclose(latency->out);
	say("LATENCY n=%" PRIu64 " sleeps=%" PRIu64 " cpu_us=%" PRIu64, latency->frames, sleeps,
	    cpu_us() - cpu0);
	free(latency);
	latency = NULL;
}

/* Returns false on quit. */
static bool
command(void)
{
	char line[320];	/* latency takes a path */

	if (!read_line(line, sizeof(line)) || strcmp(line, "quit") == 0)
		return false;
	if (strcmp(line, "stats") == 0)
		print_stats();
	else if (strcmp(line, "stop") == 0)
		;	/* a latency run's end, come after it ended by its count */
	else if (strcmp(line, "armwait") == 0)
		cmd_armwait();
	else if (strcmp(line, "partial") == 0)
		cmd_partial();
	else if (strcmp(line, "monitor") == 0)
		cmd_monitor();
	else if (strcmp(line, "restart") == 0)
		cmd_restart();
	else if (strncmp(line, "poll ", 5) == 0)
		cmd_poll((unsigned int)atoi(line + 5));
	else if (strncmp(line, "latency ", 8) == 0)
		cmd_latency(line + 8);
	else
		say("ERROR unknown command '%s'", line);
	return true;
}

static void
sleep_loop(void)
{
	for (;;) {
		bool cmd = false;
		int events;

		receive_all();
		arm(true);
		events = sleep_on_events(-1, &cmd);
		arm(false);
		if (events > 0) {
			wakeups++;
			if (receive_all() == 0)
				empty_wakeups++;
		}
		if (cmd && !command())
			return;
	}
}

/* The power library sleeps inside rte_eth_rx_burst(); stdin looked at now and then. */
static void
pmgmt_loop(void)
{
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	uint16_t q;

	for (;;) {
		unsigned int i;

		for (i = 0; i < 1024; i++)
			for (q = 0; q < nb_queues; q++)
				receive(q, BURST);
		if (poll(&pfd, 1, 0) > 0) {
			char line[64];

			if (!read_line(line, sizeof(line)) || strcmp(line, "quit") == 0)
				return;
			print_stats();
		}
	}
}

static void
register_stdin(void)
{
	static struct rte_epoll_event ev;

	ev.epdata.event = EPOLLIN;
	ev.epdata.data = STDIN_TAG;
	if (rte_epoll_ctl(RTE_EPOLL_PER_THREAD, EPOLL_CTL_ADD, 0, &ev) != 0)
		fail("rte_epoll_ctl(stdin)", EIO);
}

/*
 * Where the CPU lacks the instructions, or DPDK the library, say which (the
 * test's skip reason).
 */
static bool
pmgmt_monitor(void)
{
	struct rte_cpu_intrinsics intr;
	int ret = -ENOTSUP;

	rte_cpu_get_intrinsics_support(&intr);
#ifdef HAVE_POWER_PMD_MGMT
	uint16_t q;

	ret = 0;
	for (q = 0; q < nb_queues && ret == 0; q++)
		ret = rte_power_ethdev_pmgmt_queue_enable(rte_lcore_id(), port, q,
							  RTE_POWER_MGMT_TYPE_MONITOR);
	if (!intr.power_monitor) {
		say("PMGMT ret=%d power_monitor=0 missing=" MONITOR_NEEDS, ret);
		return false;
	}
#else
	say("PMGMT ret=%d power_monitor=%d missing=DPDK's power library (this DPDK is built without it)",
	    ret, intr.power_monitor);
	return false;
#endif
	say("PMGMT ret=%d power_monitor=1", ret);
	return ret == 0;
}

static void
parse_args(int argc, char **argv, bool *pmgmt)
{
	static const struct option opts[] = {
		{ "queues", required_argument, NULL, 'q' },
		{ "pmgmt-monitor", no_argument, NULL, 'm' },
		{ "mtu", required_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'q')
			nb_queues = (uint16_t)atoi(optarg);
		else if (c == 'm')
			*pmgmt = true;
		else if (c == 'u')
			mtu = (uint16_t)atoi(optarg);
		else
			fail("usage: -- [--queues N] [--pmgmt-monitor] [--mtu N]", EINVAL);
	}
	if (nb_queues == 0 || nb_queues > MAX_QUEUES)
		fail("--queues", EINVAL);
}

int
main(int argc, char **argv)
{
	struct rte_eth_conf conf = { .intr_conf = { .rxq = 1 } };
	struct rte_mempool *mp;
	bool pmgmt = false, pmgmt_on = false;
	uint16_t q;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		fail("rte_eal_init", rte_errno);
	parse_args(argc - ret, argv + ret, &pmgmt);
	if (rte_eth_dev_count_avail() == 0)
		fail("no port", ENODEV);
	port = 0;
	if (mtu != 0) {
		/* Frames of several mbufs: the Rx scatter offload. */
		conf.rxmode.mtu = mtu;
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	}
	mp = rte_pktmbuf_pool_create("intr_pool", NB_MBUFS, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     (int)rte_socket_id());
	if (mp == NULL)
		fail("rte_pktmbuf_pool_create", rte_errno);
	ret = rte_eth_dev_configure(port, nb_queues, nb_queues, &conf);
	if (ret != 0)
		fail("rte_eth_dev_configure", ret);
	for (q = 0; q < nb_queues; q++) {
		ret = rte_eth_rx_queue_setup(port, q, NB_DESC, rte_socket_id(), NULL, mp);
		if (ret == 0)
			ret = rte_eth_tx_queue_setup(port, q, NB_DESC, rte_socket_id(), NULL);
		if (ret != 0)
			fail("queue setup", ret);
	}
	if (pmgmt)
		pmgmt_on = pmgmt_monitor();
	ret = rte_eth_dev_start(port);
	if (ret != 0)
		fail("rte_eth_dev_start", ret);
	for (q = 0; q < nb_queues; q++) {
		ret = rte_eth_dev_rx_intr_ctl_q(port, q, RTE_EPOLL_PER_THREAD, RTE_INTR_EVENT_ADD,
						(void *)(uintptr_t)q);
		if (ret != 0)
			fail("rte_eth_dev_rx_intr_ctl_q", ret);
	}
	register_stdin();
	say("READY queues=%u", nb_queues);

	if (pmgmt_on)
		pmgmt_loop();
	else
		sleep_loop();

	ret = rte_eth_dev_stop(port);
	if (ret == 0)
		ret = rte_eth_dev_close(port);
	say("BYE rx=%" PRIu64 " ret=%d", rx_total, ret);
	rte_eal_cleanup();
	return ret == 0 ? 0 : 1;
}
